package dev.cuckoo.server.persist;

import dev.cuckoo.server.protocol.Numbers;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Where a replica stands in its master's stream, logged with the data so that a restarted replica
 * asks to continue from exactly the data it holds (PSYNC replid offset).
 *
 * <p>A replica logs a mark just before each record it applies from the stream, in the same log
 * write: {@code REPLCONF MARK replid before after db}; a master that has a stream (a replica
 * followed it once, as Redis keeps a backlog from then on) logs one before each of its own records,
 * so that after a restart it knows its history (see Redis 7's replication id and offset in RDB
 * files). The record that follows it moves the replica
 * from stream offset {@code before} to {@code after}; if the log ends at a mark whose record was
 * lost, the replica stands at {@code before} (the master sends that record again). A snapshot's new
 * log generation starts with the mark in force at the cut (before = after). Recovery skips marks
 * (they name no key) and hands the last one to replication; a mark with the id {@code ?} says the
 * server stopped being a replica (nothing to continue).
 *
 * @param replicationId the master's replication id
 * @param before the stream offset before the record that follows
 * @param after the stream offset after it
 * @param db the database the stream is in after the record
 */
public record StreamMark(String replicationId, long before, long after, int db) {
  private static final byte[] REPLCONF = "REPLCONF".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] MARK = "MARK".getBytes(StandardCharsets.US_ASCII);

  /** The mark that says there is no stream to continue. */
  public static final StreamMark NONE = new StreamMark("?", -1, -1, 0);

  /** Returns the mark in force once its record is in: both offsets at {@code after}. */
  public StreamMark settled() {
    return new StreamMark(replicationId, after, after, db);
  }

  // the last id encoded, with its bytes: a mark per record would otherwise encode it each time
  private static volatile Object[] lastId = {"", new byte[0]};

  /** Returns the record's arguments. */
  public byte[][] args() {
    Object[] cached = lastId;
    byte[] id;
    if (cached[0].equals(replicationId)) {
      id = (byte[]) cached[1];
    } else {
      id = ascii(replicationId);
      lastId = new Object[] {replicationId, id};
    }
    return new byte[][] {
      REPLCONF,
      MARK,
      id,
      ascii(Long.toString(before)),
      ascii(Long.toString(after)),
      ascii(Integer.toString(db))
    };
  }

  private static byte[] ascii(String text) {
    return text.getBytes(StandardCharsets.US_ASCII);
  }

  /** Returns the mark a logged record holds, or null if it is not a mark. */
  public static StreamMark of(byte[][] args) {
    if (args.length != 6 || !Arrays.equals(args[0], REPLCONF) || !Arrays.equals(args[1], MARK)) {
      return null;
    }
    Long before = Numbers.parseLong(args[3]);
    Long after = Numbers.parseLong(args[4]);
    Long db = Numbers.parseLong(args[5]);
    if (before == null || after == null || db == null || db < 0 || db > Integer.MAX_VALUE) {
      return null;
    }
    return new StreamMark(
        new String(args[2], StandardCharsets.US_ASCII), before, after, (int) (long) db);
  }

  /** Returns true if this mark names a stream to continue. */
  public boolean continuable() {
    return !replicationId.equals("?");
  }
}
