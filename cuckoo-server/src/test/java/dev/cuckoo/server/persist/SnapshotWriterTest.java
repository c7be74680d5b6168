package dev.cuckoo.server.persist;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.cuckoo.RedisCuckooFilter;
import dev.cuckoo.server.keyspace.Key;
import dev.cuckoo.server.keyspace.Keyspace;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The snapshot writer's one buffer: entries that cross its end, filters larger than it (whose
 * length is patched in the file, not in the buffer) and tombstones read back as written.
 */
class SnapshotWriterTest {
  @TempDir Path dir;

  private static RedisCuckooFilter<byte[]> filter(long capacity, int items) {
    // CF.RESERVE key capacity: bucket size 2, 20 iterations, expansion 1
    RedisCuckooFilter<byte[]> filter = RedisCuckooFilter.reserve(capacity, 2, 20, 1);
    for (int i = 0; i < items; i++) {
      filter.tryAdd(("item:" + i).getBytes(StandardCharsets.US_ASCII));
    }
    return filter;
  }

  private static byte[] bytes(RedisCuckooFilter<byte[]> filter) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    filter.writeTo(out);
    return out.toByteArray();
  }

  @Test
  void write_smallAndLargerThanBufferFiltersAndTombstones_readBackAsWritten() throws IOException {
    Map<Key, RedisCuckooFilter<byte[]>> written = new LinkedHashMap<>();
    for (int i = 0; i < 3000; i++) {
      // 208-byte entries: the 64 KiB buffer fills about every 315 of them, mid-entry
      written.put(
          new Key(i % 3, ("user:" + i).getBytes(StandardCharsets.US_ASCII)), filter(100, 5));
      if (i == 1000) {
        // 2^18 slots: far more than the buffer, written around it
        written.put(new Key("big".getBytes(StandardCharsets.US_ASCII)), filter(1 << 18, 1000));
      }
      if (i == 2000) {
        written.put(new Key("gone".getBytes(StandardCharsets.US_ASCII)), null);
      }
    }
    Path target = dir.resolve("dump.cuckoo");
    try (SnapshotFile.Writer writer = SnapshotFile.open(target, FileChannels.DEFAULT, 3, 40)) {
      long lsn = 41;
      for (Map.Entry<Key, RedisCuckooFilter<byte[]>> entry : written.entrySet()) {
        writer.write(entry.getKey(), lsn++, Keyspace.NO_EXPIRY, entry.getValue());
      }
      writer.commit();
    }

    Keyspace read = new Keyspace();
    SnapshotFile.Loaded loaded = SnapshotFile.read(target, read, key -> true);

    assertEquals(written.size(), loaded.keys());
    long lsn = 41;
    for (Map.Entry<Key, RedisCuckooFilter<byte[]>> entry : written.entrySet()) {
      Key key = entry.getKey();
      assertEquals(lsn++, loaded.lsns().get(key), "lsn of " + key);
      if (entry.getValue() == null) {
        assertNull(read.stored(key), "tombstone");
      } else {
        assertArrayEquals(bytes(entry.getValue()), bytes(read.stored(key)), "filter of " + key);
      }
    }
  }
}
