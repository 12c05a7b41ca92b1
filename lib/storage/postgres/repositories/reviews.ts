import type { DraftMeta, NewReview, ReviewResolution, ReviewRow, ReviewsRepo } from '../../contract/reviews';
import { claimParams, insertParams, releaseParams, resolveParams, saveDraftParams, toReviewRow, type RawReview } from '../../rows/reviews';
import { REVIEW_SQL } from '../../sql/reviews';
import type { Runner } from '../connection';

/** Researcher-in-the-loop replies (table reply_reviews; contract in ../../reviewTypes.ts). */
export class PgReviews implements ReviewsRepo {
  constructor(private readonly db: Runner) {}

  async insertIfAbsent(r: NewReview): Promise<boolean> {
    return (await this.db.run(REVIEW_SQL.insert.postgres, insertParams(r))) === 1;
  }

  async get(replyId: string): Promise<ReviewRow | undefined> {
    const r = await this.db.one<RawReview>(REVIEW_SQL.get.postgres, [replyId]);
    return r && toReviewRow(r);
  }

  async saveDraft(replyId: string, text: string, meta: DraftMeta, now: number): Promise<boolean> {
    return (await this.db.run(REVIEW_SQL.saveDraft.postgres, saveDraftParams(replyId, text, meta, now))) === 1;
  }

  async claim(replyId: string, actor: string, now: number): Promise<ReviewRow | undefined> {
    await this.db.run(REVIEW_SQL.claim.postgres, claimParams(replyId, actor, now));
    return this.get(replyId);
  }

  async release(replyId: string, actor: string, now: number): Promise<boolean> {
    return (await this.db.run(REVIEW_SQL.release.postgres, releaseParams(replyId, actor, now))) === 1;
  }

  async resolve(replyId: string, resolution: ReviewResolution): Promise<boolean> {
    return (await this.db.run(REVIEW_SQL.resolve.postgres, resolveParams(replyId, resolution))) === 1;
  }

  async listOpen(studyId?: string): Promise<ReviewRow[]> {
    const rows = studyId === undefined ? await this.db.rows<RawReview>(REVIEW_SQL.listOpenAll.postgres) : await this.db.rows<RawReview>(REVIEW_SQL.listOpenStudy.postgres, [studyId]);
    return rows.map(toReviewRow);
  }

  async listForSession(sessionId: string): Promise<ReviewRow[]> {
    return (await this.db.rows<RawReview>(REVIEW_SQL.listForSession.postgres, [sessionId])).map(toReviewRow);
  }
}
