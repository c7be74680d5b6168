package dev.cuckoo.server.protocol;

/**
 * What a {@link RespDecoder} shows of the complete requests that wait in its buffer, before it
 * decodes them one at a time: a pipeline's requests as they arrived, for work that may start early
 * (loading into the caches the memory that requests will read). It only looks: the requests are
 * decoded and run afterwards exactly as they would be without it, with their checks and limits.
 */
public interface RequestLookahead {
  /**
   * Shows one complete request: argument {@code i} is {@code lengths[i]} bytes of {@code bytes}
   * from index {@code starts[i]}. {@code bytes} is a copy of the buffered bytes that stays as it is
   * until {@link #end} returns; the two int arrays are valid during this call only. Read, never
   * modify or keep them.
   *
   * @param bytes a copy of the buffered bytes
   * @param starts the index in {@code bytes} of each argument's first byte
   * @param lengths each argument's length in bytes
   * @param count the number of arguments (at least 1)
   * @return true to be shown the next complete request, false to end this look (the requests after
   *     it are passed over)
   */
  boolean request(byte[] bytes, int[] starts, int[] lengths, int count);

  /** Ends the requests shown since the last call: the decoder now decodes them. */
  void end();
}
