export { chargesService } from './service';
