// Time comes from a clock that tests and the jobs' `as_of_date` can set; nothing reads Date.now() for
// business rules directly.

export interface Clock {
  now(): Date;
  /** Today's calendar date in UTC, YYYY-MM-DD. */
  today(): string;
}

export const systemClock: Clock = {
  now: () => new Date(),
  today: () => new Date().toISOString().slice(0, 10),
};

/** A clock a test moves by hand. */
export class ManualClock implements Clock {
  constructor(private current: Date) {}
  now(): Date {
    return new Date(this.current.getTime());
  }
  today(): string {
    return this.current.toISOString().slice(0, 10);
  }
  set(date: Date): void {
    this.current = new Date(date.getTime());
  }
  advanceDays(days: number): void {
    this.current = new Date(this.current.getTime() + days * 86_400_000);
  }
}
