export { type OperatorConfig, type OperatorConfigInput, operatorConfigSchema } from "./config.ts";
export { controllers } from "./controllers.ts";
export { OperatorConfigError, type OperatorDeps, type RunningOperator, startOperator } from "./operator.ts";
