import { SqliteRepository } from '../statements';
import type { DraftMeta, NewReview, ReviewResolution, ReviewRow, ReviewsRepo } from '../../contract/reviews';
import { claimParams, insertParams, releaseParams, resolveParams, saveDraftParams, toReviewRow, type RawReview } from '../../rows/reviews';
import { REVIEW_SQL } from '../../sql/reviews';
import type { Sync } from '../sync';

/** Researcher-in-the-loop replies (table reply_reviews; contract in ../../reviewTypes.ts). */
export class ReviewsRepository extends SqliteRepository implements Sync<ReviewsRepo> {
  insertIfAbsent(r: NewReview): boolean {
    return this.q.run(REVIEW_SQL.insert, ...insertParams(r)) === 1;
  }

  get(replyId: string): ReviewRow | undefined {
    const r = this.q.one<RawReview>(REVIEW_SQL.get, replyId);
    return r && toReviewRow(r);
  }

  saveDraft(replyId: string, text: string, meta: DraftMeta, now: number): boolean {
    return this.q.run(REVIEW_SQL.saveDraft, ...saveDraftParams(replyId, text, meta, now)) === 1;
  }

  claim(replyId: string, actor: string, now: number): ReviewRow | undefined {
    this.q.run(REVIEW_SQL.claim, ...claimParams(replyId, actor, now));
    return this.get(replyId);
  }

  release(replyId: string, actor: string, now: number): boolean {
    return this.q.run(REVIEW_SQL.release, ...releaseParams(replyId, actor, now)) === 1;
  }

  resolve(replyId: string, resolution: ReviewResolution): boolean {
    return this.q.run(REVIEW_SQL.resolve, ...resolveParams(replyId, resolution)) === 1;
  }

  listOpen(studyId?: string): ReviewRow[] {
    const rows = studyId === undefined ? this.q.rows<RawReview>(REVIEW_SQL.listOpenAll) : this.q.rows<RawReview>(REVIEW_SQL.listOpenStudy, studyId);
    return rows.map(toReviewRow);
  }

  listForSession(sessionId: string): ReviewRow[] {
    return this.q.rows<RawReview>(REVIEW_SQL.listForSession, sessionId).map(toReviewRow);
  }
}
