package dev.cuckoo.server;

import dev.cuckoo.ScalableCuckooFilter;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Applies logged records to a keyspace during recovery, skipping what the snapshot already holds.
 *
 * <p>A record numbered {@code lsn} changes key {@code k} only if {@code lsn} is greater than the
 * number the snapshot stored for {@code k} (or, for a key the snapshot did not visit, than the
 * snapshot's start number). Multi-key records (DEL, FLUSHALL) are applied key by key under the
 * same rule. Records of logs older than version 3 carry no number and are always applied. Only
 * keys {@code wanted} accepts are touched, so the same code rebuilds a few keys after a failed
 * log write and the whole keyspace at startup.
 *
 * <p>A record that fails to apply stops recovery with an {@link IOException} naming the file,
 * the offset and the command: a log that replays with errors would start the server with less
 * than was acknowledged.
 */
final class Replay implements LogReader.RecordSink {
  private final Commands commands;
  private final Keyspace target;
  private final Map<Key, Long> snapshotLsns;
  private final long startLsn;
  private final Predicate<Key> wanted;
  private final Session session =
      new Session(0, new Reply(UnpooledByteBufAllocator.DEFAULT), new Authentication(true),
          true);
  private Path file;
  private long applied;

  /**
   * Creates a replay into {@code target}.
   *
   * @param commands the command table bound to {@code target}
   * @param snapshotLsns per key, the last record number the snapshot holds
   * @param startLsn the last record number the whole snapshot holds
   * @param wanted the keys to change
   */
  Replay(Commands commands, Keyspace target, Map<Key, Long> snapshotLsns, long startLsn,
      Predicate<Key> wanted) {
    this.commands = commands;
    this.target = target;
    this.snapshotLsns = snapshotLsns;
    this.startLsn = startLsn;
    this.wanted = wanted;
  }

  /** Names the file the following records come from (for error messages). */
  void file(Path file) {
    this.file = file;
  }

  /** Returns the number of records applied (not skipped). */
  long applied() {
    return applied;
  }

  private boolean applies(Key key, long lsn) {
    return wanted.test(key) && (lsn < 0 || lsn > snapshotLsns.getOrDefault(key, startLsn));
  }

  /**
   * Returns true if a logged command changes every key (FLUSHALL, FLUSHDB); otherwise hands each
   * key it changes to {@code each} (DEL: all its arguments; every other write: its first). The one
   * place that knows which keys a record touches, for replay and for undoing failed writes.
   */
  static boolean keysOf(byte[][] args, Consumer<Key> each) {
    String name = ServerCommands.lower(args[0]);
    if (name.equals("flushall") || name.equals("flushdb")) {
      return true;
    }
    int last = name.equals("del") ? args.length - 1 : Math.min(1, args.length - 1);
    for (int i = 1; i <= last; i++) {
      each.accept(new Key(args[i]));
    }
    return false;
  }

  @Override
  public void accept(long lsn, byte[][] args, long offset) throws IOException {
    List<Key> changing = new ArrayList<>(1);
    if (keysOf(args, key -> {
      if (applies(key, lsn)) {
        changing.add(key);
      }
    })) {
      for (Key key : target.keys()) {
        if (applies(key, lsn)) {
          target.remove(key);
        }
      }
      applied++;
      return;
    }
    if (changing.isEmpty()) {
      return;
    }
    byte[][] effective = args;
    if (ServerCommands.lower(args[0]).equals("del")) {
      effective = new byte[changing.size() + 1][];
      effective[0] = args[0];
      for (int i = 0; i < changing.size(); i++) {
        effective[i + 1] = changing.get(i).bytes();
      }
    }
    commands.execute(session, effective);
    ByteBuf out = session.reply().take();
    if (out == null) {
      applied++;
      return;
    }
    try {
      if (out.isReadable() && out.getByte(out.readerIndex()) == '-') {
        String error = out.toString(StandardCharsets.UTF_8).trim().substring(1);
        throw new IOException(file + ": replaying the record at offset " + offset + " ("
            + describe(args) + ") failed: " + error + memoryAdvice(error, args)
            + "; refusing to start with less than was acknowledged");
      }
    } finally {
      out.release();
    }
    applied++;
  }

  private String memoryAdvice(String error, byte[][] args) {
    if (!error.contains("memory")) {
      return "";
    }
    long filters = 0;
    for (ScalableCuckooFilter<byte[]> filter : target.entries().values()) {
      filters += filter.sizeInBytes();
    }
    long requested = requestedBytes(args);
    return ". The filters replayed so far take " + filters + " bytes"
        + (requested > 0 ? ", this one needs " + requested + " more" : "")
        + " and the maximum heap is " + Runtime.getRuntime().maxMemory()
        + " bytes: restart with a larger -Xmx";
  }

  /** Returns the bytes a logged CF.RESERVE creates, or 0 if unknown. */
  private static long requestedBytes(byte[][] args) {
    if (!ServerCommands.lower(args[0]).equals("cf.reserve") || args.length < 3) {
      return 0;
    }
    Long capacity = Numbers.parseLong(args[2]);
    long bucketSize = 2;
    for (int i = 3; i + 1 < args.length; i += 2) {
      if (ServerCommands.lower(args[i]).equals("bucketsize")) {
        Long value = Numbers.parseLong(args[i + 1]);
        bucketSize = value == null ? bucketSize : value;
      }
    }
    try {
      return capacity == null ? 0
          : ScalableCuckooFilter.redisBloomSizeInBytes(capacity, (int) bucketSize);
    } catch (RuntimeException e) {
      return 0;
    }
  }

  private static String describe(byte[][] args) {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < Math.min(args.length, 3); i++) {
      String arg = ServerCommands.text(args[i]);
      text.append(i == 0 ? "" : " ").append(arg, 0, Math.min(arg.length(), 64));
    }
    return args.length > 3 ? text.append(" ...").toString() : text.toString();
  }
}
