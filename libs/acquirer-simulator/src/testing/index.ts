// @pgw/acquirer-simulator/testing: the simulator in memory, for other services' specs. Never imported by
// production code.
export { MemorySimStore } from './memory-sim-store';
export { TestAcquirerSim } from './test-acquirer-sim';
