import {
  CONSUMER_LAG,
  counter,
  gauge,
  MESSAGING_CLIENT_CONSUMED_MESSAGES,
} from '@pgw/platform-metrics';

const consumedMetric = counter(MESSAGING_CLIENT_CONSUMED_MESSAGES);
const lagMetric = gauge(CONSUMER_LAG);

export interface DeliveredBatch {
  /** `messaging.system`: `kafka`, or `in-process`. */
  system: string;
  group: string;
  topic: string;
  partition: number;
  size: number;
  /** Messages of the partition still to be read by the group after this batch. */
  lag: number;
}

/** What each bus records when it hands a batch to a consumer group: the messages consumed and the lag left. */
export function recordDelivered(batch: DeliveredBatch): void {
  const where = {
    'messaging.system': batch.system,
    'messaging.destination.name': batch.topic,
    'messaging.consumer.group.name': batch.group,
    'messaging.destination.partition.id': String(batch.partition),
  };
  consumedMetric.add(batch.size, { ...where, 'messaging.operation.name': 'process' });
  lagMetric.record(batch.lag, where);
}
