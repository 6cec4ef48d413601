export { anticipationService } from './service';
