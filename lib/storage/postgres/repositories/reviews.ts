import type { DraftMeta, NewReview, ReviewResolution, ReviewRow, ReviewsRepo } from '../../contract/reviews';
import { claimParams, insertParams, numbered, releaseParams, resolveParams, REVIEW_SQL, saveDraftParams, toReviewRow, type RawReview } from '../../rows/reviews';
import type { Runner } from '../connection';

const SQL = Object.fromEntries(Object.entries(REVIEW_SQL).map(([k, v]) => [k, numbered(v)])) as Record<keyof typeof REVIEW_SQL, string>;

/** Researcher-in-the-loop replies (table reply_reviews; contract in ../../reviewTypes.ts). */
export class PgReviews implements ReviewsRepo {
  constructor(private readonly db: Runner) {}

  async insertIfAbsent(r: NewReview): Promise<boolean> {
    return (await this.db.run(SQL.insert, insertParams(r))) === 1;
  }

  async get(replyId: string): Promise<ReviewRow | undefined> {
    const r = await this.db.one<RawReview>(SQL.get, [replyId]);
    return r && toReviewRow(r);
  }

  async saveDraft(replyId: string, text: string, meta: DraftMeta, now: number): Promise<boolean> {
    return (await this.db.run(SQL.saveDraft, saveDraftParams(replyId, text, meta, now))) === 1;
  }

  async claim(replyId: string, actor: string, now: number): Promise<ReviewRow | undefined> {
    await this.db.run(SQL.claim, claimParams(replyId, actor, now));
    return this.get(replyId);
  }

  async release(replyId: string, actor: string, now: number): Promise<boolean> {
    return (await this.db.run(SQL.release, releaseParams(replyId, actor, now))) === 1;
  }

  async resolve(replyId: string, resolution: ReviewResolution): Promise<boolean> {
    return (await this.db.run(SQL.resolve, resolveParams(replyId, resolution))) === 1;
  }

  async listOpen(studyId?: string): Promise<ReviewRow[]> {
    const rows = studyId === undefined ? await this.db.rows<RawReview>(SQL.listOpenAll) : await this.db.rows<RawReview>(SQL.listOpenStudy, [studyId]);
    return rows.map(toReviewRow);
  }

  async listForSession(sessionId: string): Promise<ReviewRow[]> {
    return (await this.db.rows<RawReview>(SQL.listForSession, [sessionId])).map(toReviewRow);
  }
}
