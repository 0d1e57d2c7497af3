/** The mutation run's suite for the shared host admission (admit.ts), through both adapters, in-process. */
import "../admission.test.js";
