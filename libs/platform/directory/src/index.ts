export {
  copyEvent,
  createCopyTable,
  directoryConsumer,
  DIRECTORY_EVENT_TYPES,
  upsertNewer,
} from './directory';
export type { CopyTable, DirectoryEventType, DirectoryHandlers } from './directory';
