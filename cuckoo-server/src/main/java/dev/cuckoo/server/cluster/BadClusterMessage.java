package dev.cuckoo.server.cluster;

/**
 * A cluster bus message that does not follow Redis's layout: a wrong signature, version or length,
 * or a section that runs past the message. Names the field and its offset.
 */
public final class BadClusterMessage extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Creates the error for {@code field} at byte {@code offset}, with what was wrong. */
  BadClusterMessage(String field, int offset, String problem) {
    super(field + " at offset " + offset + ": " + problem);
  }
}
