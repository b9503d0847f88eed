export * from "./identity";
export * from "./classroom";
export * from "./exam";
export * from "./graph";
export * from "./jobs";
export * from "./speech";
export * from "./intake";
export * from "./rubrics";
