package dev.cuckoo.server.persist;

import dev.cuckoo.server.protocol.Numbers;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * Where a replica stands in its master's stream, logged with the data so that a restarted replica
 * asks to continue from exactly the data it holds (PSYNC replid offset).
 *
 * <p>A mark is logged just before a record, in the same log write: {@code REPLCONF MARK replid
 * before after db}. The record that follows it moves the stream from offset {@code before} to
 * {@code after}; if the log ends at a mark whose record was lost, the stream stands at {@code
 * before} (the master sends that record again). A record logged without a mark continues the stream
 * exactly by its own encoding ({@link #next}: SELECT when the database changes, the command as a
 * RESP array, a transaction as MULTI … EXEC), so a mark is logged only where that rule does not
 * hold (the first record, a PING or SELECT of the master in between, a new replication id, a write
 * of a writable replica that is not in the stream: a mark with {@code before = after}). Replicas
 * log the marks of their master's stream; a master that has a stream (a replica followed it once,
 * as Redis keeps a backlog from then on) logs its own, so that after a restart it knows its history
 * (Redis 7 keeps the replication id and offset in its RDB files for the same reason). A snapshot's
 * new log generation starts with the position at the cut (before = after). Recovery skips marks
 * (they name no key) and hands the position to replication; a mark with the id {@code ?} says the
 * server stopped being in a stream (nothing to continue).
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
    return new byte[][] {REPLCONF, MARK, id, decimal(before), decimal(after), decimal(db)};
  }

  /** Returns a number's decimal digits in ASCII (a mark per record: no String on the way). */
  private static byte[] decimal(long value) {
    if (value < 0) {
      return ascii(Long.toString(value));
    }
    byte[] out = new byte[digits(value)];
    long rest = value;
    for (int i = out.length - 1; i >= 0; i--) {
      out[i] = (byte) ('0' + rest % 10);
      rest /= 10;
    }
    return out;
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

  /**
   * Returns the position after a record logged without a mark, from this settled position: the
   * record's bytes in the stream as a master encodes them (SELECT if its database is not the
   * stream's, the command as a RESP array; a transaction record as MULTI, its writes with SELECT
   * where the database changes, EXEC).
   */
  public StreamMark next(int db, byte[][] args) {
    long length;
    int streamDb = this.db;
    if (Transaction.isRecord(args)) {
      List<Transaction.Write> writes = Transaction.decode(args);
      int first = writes.isEmpty() ? db : writes.get(0).db;
      length = selectLength(streamDb, first) + nameOnlyLength(5);
      streamDb = first;
      for (Transaction.Write write : writes) {
        length += selectLength(streamDb, write.db) + respLength(write.args);
        streamDb = write.db;
      }
      length += nameOnlyLength(4);
    } else {
      length = selectLength(streamDb, db) + respLength(args);
      streamDb = db;
    }
    return new StreamMark(replicationId, after + length, after + length, streamDb);
  }

  /**
   * Returns true if a record that moves the stream as {@code mark} says needs no mark of its own
   * after this settled position: same id, it begins where this ends, and {@link #next} gives the
   * same end and database.
   */
  public boolean continuedBy(StreamMark mark, int db, byte[][] args) {
    if (!continuable()
        || mark.before != after
        || mark.after <= mark.before
        || !mark.replicationId.equals(replicationId)) {
      return false;
    }
    StreamMark next = next(db, args);
    return next.after == mark.after && next.db == mark.db;
  }

  private static long selectLength(int streamDb, int db) {
    if (db == streamDb) {
      return 0;
    }
    // *2 $6 SELECT $n n
    int digits = digits(db);
    return 4 + 4 + 8 + 1 + digits(digits) + 2 + digits + 2;
  }

  /** Returns the bytes of a command without arguments whose name has {@code length} bytes. */
  private static long nameOnlyLength(int length) {
    return 4 + 1 + digits(length) + 2 + length + 2;
  }

  private static long respLength(byte[][] args) {
    long length = 1 + digits(args.length) + 2;
    for (byte[] arg : args) {
      length += 1 + digits(arg.length) + 2 + arg.length + 2;
    }
    return length;
  }

  /** Returns the decimal digits of a non-negative number (by comparison: no division). */
  private static int digits(long value) {
    int digits = 1;
    for (long bound = 10; digits < 19 && value >= bound; bound *= 10) {
      digits++;
    }
    return digits;
  }

  /** Returns true if this mark names a stream to continue. */
  public boolean continuable() {
    return !replicationId.equals("?");
  }
}
