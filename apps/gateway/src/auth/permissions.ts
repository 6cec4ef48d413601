// The permissions of api-v1.md §5 are @pgw/domain's list, the one the SDK and the tools use too.
export { isPermission, PERMISSIONS } from '@pgw/domain';
export type { Permission } from '@pgw/domain';
