export { acquirerSimService } from './service';
export { REFUND_DECLINED_CARD } from './test-cards';
export { PROVIDER_MODE_PATH } from './routes/provider-mode.route';
