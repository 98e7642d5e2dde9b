import { fastClass } from '../jsutils/fastClass.ts';

/** The webhook API's refusals of its input: a message for the caller, and a stable code. */
export class WebhookError extends Error {
  /** One of the registry's codes (errors/codes.ts). */
  readonly code: string;
  constructor(message: string, code: string) {
    super(message);
    this.name = 'WebhookError';
    this.code = code;
  }
}
fastClass(WebhookError);
