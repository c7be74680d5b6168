package dev.cuckoo.server.persist;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.cuckoo.server.ForwardingFileChannel;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link AppendLog} when a write fails just before a snapshot rotates the log: the records of the
 * failed write must stay unacknowledged and reach {@link AppendLog#discardUnacknowledged} (which
 * undoes them in memory), whatever the rotation does meanwhile.
 */
class AppendLogTest {
  @TempDir Path dir;

  private final AtomicBoolean failWrites = new AtomicBoolean();

  /** The real files, except that writes throw EIO while {@link #failWrites} is set. */
  private final FileChannels files =
      (path, options) ->
          new ForwardingFileChannel(FileChannel.open(path, options)) {
            @Override
            public int write(ByteBuffer src, long position) throws IOException {
              if (failWrites.get()) {
                throw new IOException("Input/output error");
              }
              return delegate.write(src, position);
            }
          };

  private static byte[][] command(String... args) {
    byte[][] out = new byte[args.length][];
    for (int i = 0; i < args.length; i++) {
      out[i] = args[i].getBytes(StandardCharsets.UTF_8);
    }
    return out;
  }

  @Test
  void rotate_writeFailedAndNotYetUndone_throwsAndKeepsTheRecordsUnacknowledged() throws Exception {
    Path path = dir.resolve(Persistence.LOG);
    AppendLog log = AppendLog.create(path, files, 1, 0);
    try {
      long written = log.append(0, command("CF.ADD", "k", "a"));
      log.flush(false);
      failWrites.set(true);
      long failed = log.append(0, command("CF.ADD", "k", "b"));
      IOException failure = assertThrows(IOException.class, () -> log.flush(false));
      // the disk answers again by the time a snapshot rotates the log, before the failure is undone
      failWrites.set(false);

      IOException thrown =
          assertThrows(IOException.class, () -> log.rotate(2, dir.resolve(Persistence.LOG + ".1")));

      assertSame(failure, thrown);
      assertEquals(written, log.durableLsn(false), "the failed record must not count as written");
      List<Long> undone = new ArrayList<>();
      List<byte[][]> undoneArgs = new ArrayList<>();
      LogReader.parse(
          log.discardUnacknowledged(false),
          (lsn, db, args, offset) -> {
            undone.add(lsn);
            undoneArgs.add(args);
          });
      assertEquals(List.of(failed), undone);
      assertArrayEquals(command("CF.ADD", "k", "b"), undoneArgs.get(0));
      // once undone, the rotation starts the new file after the failed record's number
      assertEquals(failed, log.rotate(2, dir.resolve(Persistence.LOG + ".1")));
      long next = log.append(0, command("CF.ADD", "k", "c"));
      log.flush(true);
      assertEquals(next, log.durableLsn(true));
    } finally {
      log.close();
    }
  }
}
