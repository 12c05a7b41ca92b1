import { cachedStatement, type SqliteDatabase } from '../database';
import type { DraftMeta, NewReview, ReviewResolution, ReviewRow, ReviewsRepo } from '../../contract/reviews';
import { claimParams, insertParams, releaseParams, resolveParams, REVIEW_SQL, saveDraftParams, toReviewRow, type RawReview } from '../../rows/reviews';
import type { Sync } from '../sync';

/** Researcher-in-the-loop replies (table reply_reviews; contract in ../../reviewTypes.ts). */
export class ReviewsRepository implements Sync<ReviewsRepo> {
  constructor(private readonly db: SqliteDatabase) {}

  insertIfAbsent(r: NewReview): boolean {
    return cachedStatement(this.db, REVIEW_SQL.insert).run(...insertParams(r)).changes === 1;
  }

  get(replyId: string): ReviewRow | undefined {
    const r = cachedStatement(this.db, REVIEW_SQL.get).get(replyId) as RawReview | undefined;
    return r && toReviewRow(r);
  }

  saveDraft(replyId: string, text: string, meta: DraftMeta, now: number): boolean {
    return cachedStatement(this.db, REVIEW_SQL.saveDraft).run(...saveDraftParams(replyId, text, meta, now)).changes === 1;
  }

  claim(replyId: string, actor: string, now: number): ReviewRow | undefined {
    cachedStatement(this.db, REVIEW_SQL.claim).run(...claimParams(replyId, actor, now));
    return this.get(replyId);
  }

  release(replyId: string, actor: string, now: number): boolean {
    return cachedStatement(this.db, REVIEW_SQL.release).run(...releaseParams(replyId, actor, now)).changes === 1;
  }

  resolve(replyId: string, resolution: ReviewResolution): boolean {
    return cachedStatement(this.db, REVIEW_SQL.resolve).run(...resolveParams(replyId, resolution)).changes === 1;
  }

  listOpen(studyId?: string): ReviewRow[] {
    const rows = studyId === undefined ? cachedStatement(this.db, REVIEW_SQL.listOpenAll).all() : cachedStatement(this.db, REVIEW_SQL.listOpenStudy).all(studyId);
    return (rows as RawReview[]).map(toReviewRow);
  }

  listForSession(sessionId: string): ReviewRow[] {
    return (cachedStatement(this.db, REVIEW_SQL.listForSession).all(sessionId) as RawReview[]).map(toReviewRow);
  }
}
