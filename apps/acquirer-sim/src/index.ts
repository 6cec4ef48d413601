export { acquirerSimService } from './service';
export { PROVIDER_MODE_PATH, REFUND_DECLINED_CARD } from '@pgw/acquirer-simulator';
