/**
 * The order the comparison runs its workloads in: a fresh random order for every turn, drawn from a seed that
 * the results print, so that a run can be repeated in the same order.
 *
 * Why not a rotation: rotating a fixed order changes where each workload stands, but not what runs right before
 * it, and the server is still busy with the work of the workload before (its history and visibility writes)
 * when the next one starts. In a rotated order of nine workloads, `QuestionClient.answer` always ran after the
 * update floor, and the control, the update floor again, always after the approvals: over 15 rounds the control
 * read 0.965x the floor's c=1 p50 (quartiles 0.94-0.99), two identical workloads apart by more than the gaps the
 * comparison is there to measure. Drawn at random, each workload follows each other one as often, in expectation.
 */
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';

/** Random orders from one seed. */
export class RunOrder {
  private readonly random;

  constructor(readonly seed: number) {
    this.random = xoroshiro128plus(seed);
  }

  /** `items` in a new random order (Fisher-Yates). */
  shuffle<T>(items: readonly T[]): T[] {
    const order = [...items];
    for (let index = order.length - 1; index > 0; index -= 1) {
      const other = uniformInt(this.random, 0, index);
      [order[index], order[other]] = [order[other]!, order[index]!];
    }
    return order;
  }
}

/** A seed for a run that names none: a whole number from 1, as `--seed` takes it back. */
export function newSeed(): number {
  return 1 + Math.floor(Math.random() * (2 ** 31 - 1));
}
