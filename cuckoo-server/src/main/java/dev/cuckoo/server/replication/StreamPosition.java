package dev.cuckoo.server.replication;

import dev.cuckoo.server.persist.StreamMark;

/**
 * Where the replication stream stands after the record the write path just handed it: the stream's
 * offset after the record (what WAIT waits for), and where the record stands in this master's own
 * stream (the mark logged before it), or null. One per write path, filled by {@link
 * WriteStream#record} under the write path's lock and read right after, so that a record costs one
 * call into replication and no allocation.
 */
public final class StreamPosition {
  private long offset;
  private StreamMark mark;

  /** Sets the offset after the record and its mark (null: none). */
  public void set(long offset, StreamMark mark) {
    this.offset = offset;
    this.mark = mark;
  }

  /** Returns the stream's offset after the record. */
  public long offset() {
    return offset;
  }

  /** Returns where the record stands in this master's own stream, or null. */
  public StreamMark mark() {
    return mark;
  }
}
