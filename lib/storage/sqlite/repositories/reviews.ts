import { cachedStatement, type SqliteDatabase } from '../database';
import type { DraftMeta, NewReview, ReviewResolution, ReviewRow, ReviewsRepo } from '../../contract/reviews';
import { claimParams, insertParams, releaseParams, resolveParams, saveDraftParams, toReviewRow, type RawReview } from '../../rows/reviews';
import { REVIEW_SQL } from '../../sql/reviews';
import type { Sync } from '../sync';

/** Researcher-in-the-loop replies (table reply_reviews; contract in ../../reviewTypes.ts). */
export class ReviewsRepository implements Sync<ReviewsRepo> {
  constructor(private readonly db: SqliteDatabase) {}

  insertIfAbsent(r: NewReview): boolean {
    return cachedStatement(this.db, REVIEW_SQL.insert.sqlite).run(...insertParams(r)).changes === 1;
  }

  get(replyId: string): ReviewRow | undefined {
    const r = cachedStatement(this.db, REVIEW_SQL.get.sqlite).get(replyId) as RawReview | undefined;
    return r && toReviewRow(r);
  }

  saveDraft(replyId: string, text: string, meta: DraftMeta, now: number): boolean {
    return cachedStatement(this.db, REVIEW_SQL.saveDraft.sqlite).run(...saveDraftParams(replyId, text, meta, now)).changes === 1;
  }

  claim(replyId: string, actor: string, now: number): ReviewRow | undefined {
    cachedStatement(this.db, REVIEW_SQL.claim.sqlite).run(...claimParams(replyId, actor, now));
    return this.get(replyId);
  }

  release(replyId: string, actor: string, now: number): boolean {
    return cachedStatement(this.db, REVIEW_SQL.release.sqlite).run(...releaseParams(replyId, actor, now)).changes === 1;
  }

  resolve(replyId: string, resolution: ReviewResolution): boolean {
    return cachedStatement(this.db, REVIEW_SQL.resolve.sqlite).run(...resolveParams(replyId, resolution)).changes === 1;
  }

  listOpen(studyId?: string): ReviewRow[] {
    const rows = studyId === undefined ? cachedStatement(this.db, REVIEW_SQL.listOpenAll.sqlite).all() : cachedStatement(this.db, REVIEW_SQL.listOpenStudy.sqlite).all(studyId);
    return (rows as RawReview[]).map(toReviewRow);
  }

  listForSession(sessionId: string): ReviewRow[] {
    return (cachedStatement(this.db, REVIEW_SQL.listForSession.sqlite).all(sessionId) as RawReview[]).map(toReviewRow);
  }
}
