/**
 * The chaos soak's toxics (`npm run soak -- --toxic latency|reset|bandwidth|blackhole|all`): what each one is
 * in Toxiproxy's terms, when it is switched on and off, and the provider settings its run uses.
 *
 * Every client of the run (agents, workers, answerer) reaches the dev server through one Toxiproxy proxy; a
 * toxic is switched on when a share of the questions has been asked (as the soak's other faults are), so it
 * lands while questions are both starting and waiting, and off again at a later share, or for the blackhole
 * after a fixed time.
 */
import type { Toxic, ToxiproxyProxy } from '../../test/helpers/toxiproxy';
import { blackholeToxics } from '../../test/helpers/toxiproxy';

/** The toxics the chaos soak knows. */
export const TOXIC_NAMES = ['latency', 'reset', 'bandwidth', 'blackhole'] as const;

/** One of {@link TOXIC_NAMES}. */
export type ToxicName = (typeof TOXIC_NAMES)[number];

/** One toxic's run. */
export interface ToxicPlan {
  name: ToxicName;
  /** In words, for the report. */
  description: string;
  toxics: Toxic[];
  /** Share of the questions asked that switches it on. */
  onAtAsked: number;
  /** Switched off at this share asked, or this long after it was switched on. */
  off: { asked: number } | { afterMs: number };
  /**
   * While on, the toxics are removed and added again this often. Toxiproxy draws `toxicity` once per connection
   * as a toxic is added, and gRPC keeps its few connections for long: drawing again is what reaches new ones.
   */
  redrawEveryMs?: number;
  /** The agents' `unavailableTimeoutMs` in this run. */
  unavailableTimeoutMs: number;
}

/** Bytes per second the bandwidth toxic lets through, each way, on each connection. */
const BANDWIDTH_KB_PER_S = 32;

/** The plan of each toxic. */
export function toxicPlan(name: ToxicName): ToxicPlan {
  const both = (toxic: Omit<Toxic, 'name' | 'stream'>): Toxic[] =>
    (['upstream', 'downstream'] as const).map((stream) => ({ ...toxic, name: `${name}-${stream}`, stream }));
  switch (name) {
    case 'latency':
      return {
        name,
        description: 'latency 200 ms ± 100 ms each way',
        toxics: both({ type: 'latency', attributes: { latency: 200, jitter: 100 } }),
        onAtAsked: 0.2,
        off: { asked: 0.7 },
        unavailableTimeoutMs: 15_000,
      };
    case 'reset':
      return {
        name,
        description: 'reset_peer on 1 % of connections, drawn again every 250 ms',
        toxics: [
          {
            name: 'reset',
            type: 'reset_peer',
            stream: 'downstream',
            toxicity: 0.01,
            attributes: { timeout: 0 },
          },
        ],
        onAtAsked: 0.2,
        off: { asked: 0.7 },
        redrawEveryMs: 250,
        unavailableTimeoutMs: 15_000,
      };
    case 'bandwidth':
      return {
        name,
        description: `bandwidth ${BANDWIDTH_KB_PER_S} KB/s each way on each connection`,
        toxics: both({ type: 'bandwidth', attributes: { rate: BANDWIDTH_KB_PER_S } }),
        onAtAsked: 0.2,
        off: { asked: 0.7 },
        unavailableTimeoutMs: 15_000,
      };
    case 'blackhole':
      return {
        name,
        description:
          'blackhole for 30 s: timeout toxic, timeout 0, both ways (nothing delivered, nothing closed)',
        toxics: blackholeToxics(),
        onAtAsked: 0.4,
        off: { afterMs: 30_000 },
        // Shorter than the blackhole, so ASK_UNAVAILABLE is due inside it.
        unavailableTimeoutMs: 10_000,
      };
  }
}

/** Parses `--toxic NAME|all`. */
export function parseToxicNames(value: string): ToxicName[] {
  if (value === 'all') return [...TOXIC_NAMES];
  if ((TOXIC_NAMES as readonly string[]).includes(value)) return [value as ToxicName];
  throw new Error(`--toxic: must be one of ${TOXIC_NAMES.join(', ')} or all, got "${value}"`);
}

/** A toxic switched on and off over the run, as it happened (ms since the epoch). */
export interface ToxicWindow {
  from: number;
  to: number;
}

/** Switches one plan's toxics on and off as the run progresses. */
export class ChaosController {
  private onAt: number | undefined;
  private offAt: number | undefined;
  private redrawTimer: NodeJS.Timeout | undefined;
  private redrawing: Promise<void> = Promise.resolve();
  /** Times the toxics were drawn again while on. */
  redraws = 0;

  constructor(
    private readonly proxy: ToxiproxyProxy,
    readonly plan: ToxicPlan,
  ) {}

  /** The window the toxic was on, once it was switched off. */
  get window(): ToxicWindow | undefined {
    return this.onAt !== undefined && this.offAt !== undefined
      ? { from: this.onAt, to: this.offAt }
      : undefined;
  }

  /** Whether the toxic is to be switched on or off now, given the share of questions asked. */
  due(askedShare: number): 'on' | 'off' | undefined {
    if (this.onAt === undefined) return askedShare >= this.plan.onAtAsked ? 'on' : undefined;
    if (this.offAt !== undefined) return undefined;
    const { off } = this.plan;
    if ('asked' in off) return askedShare >= off.asked ? 'off' : undefined;
    return Date.now() - this.onAt >= off.afterMs ? 'off' : undefined;
  }

  /** Switches the toxics on through Toxiproxy's API. */
  async switchOn(): Promise<void> {
    for (const toxic of this.plan.toxics) await this.proxy.addToxic(toxic);
    this.onAt = Date.now();
    if (this.plan.redrawEveryMs !== undefined) {
      this.redrawTimer = setInterval(() => {
        this.redrawing = this.redrawing.then(() => this.redraw());
      }, this.plan.redrawEveryMs);
    }
  }

  /** Switches the toxics off through Toxiproxy's API. */
  async switchOff(): Promise<void> {
    clearInterval(this.redrawTimer);
    await this.redrawing;
    for (const toxic of this.plan.toxics) await this.proxy.removeToxic(toxic.name);
    this.offAt = Date.now();
  }

  private async redraw(): Promise<void> {
    if (this.offAt !== undefined) return;
    for (const toxic of this.plan.toxics) {
      await this.proxy.removeToxic(toxic.name);
      await this.proxy.addToxic(toxic);
    }
    this.redraws += 1;
  }
}
