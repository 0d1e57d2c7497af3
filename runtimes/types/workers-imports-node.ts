// The control case: the Node entry does need Node's types, so a Workers-typed program importing it must fail.
import { wymcpNode } from "wymcp/node";

export const guard = wymcpNode();
