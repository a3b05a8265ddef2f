/** The agent side: the durable `UserInteraction` provider that starts or re-attaches to a question and waits. */
export { TemporalUserInteraction, type TemporalUserInteractionOptions } from './temporal-user-interaction';
