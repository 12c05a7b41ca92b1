/** Typed annotation columns that double in capacity as rows arrive. */
export class AnnotationColumns {
  size = 0;
  private capacity = 1024;
  session = new Int32Array(this.capacity);
  turn = new Int32Array(this.capacity);
  speaker = new Uint8Array(this.capacity);
  friction = new Int32Array(this.capacity);
  groundingStart = new Uint32Array(this.capacity + 1);
  groundingIds = new Uint16Array(2048);
  groundingSize = 0;

  push(session: number, turn: number, speaker: number, friction: number): void {
    if (this.size === this.capacity) this.grow();
    const i = this.size++;
    this.session[i] = session;
    this.turn[i] = turn;
    this.speaker[i] = speaker;
    this.friction[i] = friction;
    this.groundingStart[i] = this.groundingSize;
    this.groundingStart[i + 1] = this.groundingSize;
  }

  pushGrounding(id: number): void {
    if (this.groundingSize === this.groundingIds.length) {
      const bigger = new Uint16Array(this.groundingIds.length * 2);
      bigger.set(this.groundingIds);
      this.groundingIds = bigger;
    }
    this.groundingIds[this.groundingSize++] = id;
    this.groundingStart[this.size] = this.groundingSize;
  }

  finish() {
    return {
      size: this.size,
      session: this.session.subarray(0, this.size),
      turn: this.turn.subarray(0, this.size),
      speaker: this.speaker.subarray(0, this.size),
      friction: this.friction.subarray(0, this.size),
      groundingStart: this.groundingStart.subarray(0, this.size + 1),
      groundingIds: this.groundingIds.subarray(0, this.groundingSize),
    };
  }

  private grow(): void {
    this.capacity *= 2;
    const grow = <T extends Int32Array | Uint8Array | Uint32Array>(a: T, make: (n: number) => T, extra = 0): T => {
      const b = make(this.capacity + extra);
      b.set(a);
      return b;
    };
    this.session = grow(this.session, (n) => new Int32Array(n));
    this.turn = grow(this.turn, (n) => new Int32Array(n));
    this.speaker = grow(this.speaker, (n) => new Uint8Array(n));
    this.friction = grow(this.friction, (n) => new Int32Array(n));
    this.groundingStart = grow(this.groundingStart, (n) => new Uint32Array(n), 1);
  }
}
