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
   * from index {@code starts[i]}. The arrays are a copy valid during the call only (read, never
   * modify or keep them).
   *
   * @param bytes a copy of the buffered bytes
   * @param starts the index in {@code in} of each argument's first byte
   * @param lengths each argument's length in bytes
   * @param count the number of arguments (at least 1)
   */
  void request(byte[] bytes, int[] starts, int[] lengths, int count);

  /** Ends the requests shown since the last call: the decoder now decodes them. */
  void end();
}
