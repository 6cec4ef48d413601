// @pgw/tools: the workspace's Nx plugin (generators.json lists its generators). Nx finds it through this alias.
export { default as serviceGenerator, serviceFiles } from './service/generator';
export type { ServiceGeneratorSchema } from './service/generator';
