package dev.cuckoo.server.persist;

/**
 * Runs one logged write against the keyspace being recovered: how recovery reaches the command
 * table without depending on it.
 */
@FunctionalInterface
public interface RecordApplier {
  /**
   * Applies a write that ran in database {@code db}; returns null, or the error it answered
   * (without the leading dash).
   */
  String apply(int db, byte[][] args);
}
