export { ledgerService } from './service';
