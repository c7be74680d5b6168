package dev.cuckoo.server.session;

/**
 * A command of the command layer as a session holds it for that layer: a request its transaction
 * queued (between MULTI and EXEC), or the command a name was last found as. Opaque here: the
 * session only keeps it, and only the command layer reads it.
 */
public interface CommandRef {
  /**
   * Returns the arguments of a queued request (what MULTI's {@code multi-mem} counts); a command's
   * table entry, which has none, returns an empty array.
   */
  default byte[][] args() {
    return new byte[0][];
  }
}
