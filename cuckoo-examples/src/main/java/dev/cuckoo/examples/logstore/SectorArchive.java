package dev.cuckoo.examples.logstore;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Optional;

/**
 * Stores a file in a {@link LogStore} as content-addressed 1 KiB sectors, and writes it back.
 *
 * <p>Each sector is stored under the SHA-1 of its bytes, so identical sectors are stored once. The
 * order of the sectors is kept in a manifest: the key {@code "manifest"} holds the file length and
 * the sector count, and the keys {@code "manifest/0"}, {@code "manifest/1"}, ... hold the sector
 * keys, {@value #KEYS_PER_CHUNK} to a chunk. Manifest keys are shorter than the 20-byte sector
 * keys, so the two never collide. A store holds one imported file; importing again replaces it
 * (sectors of the earlier file stay stored). Export checks every sector against its SHA-1.
 */
public final class SectorArchive {
  /** Size of a sector in bytes (the last sector of a file may be shorter). */
  public static final int SECTOR_BYTES = 1024;

  /** Number of sector keys per manifest chunk. */
  public static final int KEYS_PER_CHUNK = 4096;

  private static final int KEY_BYTES = 20;
  private static final byte[] MANIFEST_KEY = "manifest".getBytes(StandardCharsets.US_ASCII);
  private static final int MANIFEST_BYTES = 12;
  private static final long MAX_SECTORS = Integer.MAX_VALUE;

  /**
   * What an import did.
   *
   * @param fileBytes length of the imported file
   * @param sectors number of sectors in the file
   * @param newSectors sectors that were not stored yet: each one's lookup was a lookup of an absent
   *     key
   * @param recordReads records read from the log during the import (lookups of new sectors that had
   *     to read, plus one per sector that was already stored, plus index growth)
   */
  public record ImportSummary(long fileBytes, long sectors, long newSectors, long recordReads) {}

  private SectorArchive() {}

  /**
   * Stores the file {@code source} in {@code store}, replacing any file imported before.
   *
   * @param source the file to store
   * @param store the store
   * @return counts of what was stored and read
   * @throws IOException if the file cannot be read or the store cannot be written
   */
  public static ImportSummary importFile(Path source, LogStore store) throws IOException {
    long readsBefore = store.recordReads();
    int oldChunks = readManifest(store).map(manifest -> chunkCount(manifest.sectors)).orElse(0);
    MessageDigest sha1 = sha1();
    ByteBuffer chunk = ByteBuffer.allocate(KEYS_PER_CHUNK * KEY_BYTES);
    long fileBytes = 0;
    long sectors = 0;
    long newSectors = 0;
    int chunks = 0;
    try (InputStream in = Files.newInputStream(source)) {
      byte[] sector;
      while ((sector = in.readNBytes(SECTOR_BYTES)).length > 0) {
        if (sectors == MAX_SECTORS) {
          throw new IOException(
              source + ": more than " + MAX_SECTORS + " sectors (expected: a smaller file)");
        }
        byte[] key = sha1.digest(sector);
        if (store.putIfAbsent(key, sector)) {
          newSectors++;
        }
        chunk.put(key);
        if (!chunk.hasRemaining()) {
          store.put(chunkKey(chunks++), chunk.array());
          chunk.clear();
        }
        fileBytes += sector.length;
        sectors++;
      }
    }
    if (chunk.position() > 0) {
      store.put(chunkKey(chunks++), Arrays.copyOf(chunk.array(), chunk.position()));
    }
    for (int i = chunks; i < oldChunks; i++) {
      store.delete(chunkKey(i));
    }
    ByteBuffer manifest = ByteBuffer.allocate(MANIFEST_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    store.put(MANIFEST_KEY, manifest.putLong(fileBytes).putInt((int) sectors).array());
    return new ImportSummary(fileBytes, sectors, newSectors, store.recordReads() - readsBefore);
  }

  /**
   * Writes the file stored in {@code store} to {@code target}, sector by sector in order.
   *
   * @param store the store
   * @param target the file to write (replaced if it exists)
   * @return the number of bytes written
   * @throws IOException if the store holds no file, a sector is missing or does not match its
   *     SHA-1, or {@code target} cannot be written
   */
  public static long exportFile(LogStore store, Path target) throws IOException {
    Manifest manifest =
        readManifest(store).orElseThrow(() -> new IOException("the store holds no imported file"));
    MessageDigest sha1 = sha1();
    long written = 0;
    try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(target))) {
      byte[] keys = new byte[0];
      for (long i = 0; i < manifest.sectors; i++) {
        int inChunk = (int) (i % KEYS_PER_CHUNK);
        if (inChunk == 0) {
          keys = readChunk(store, (int) (i / KEYS_PER_CHUNK), manifest.sectors - i);
        }
        byte[] key = Arrays.copyOfRange(keys, inChunk * KEY_BYTES, (inChunk + 1) * KEY_BYTES);
        byte[] sector =
            store.get(key).orElseThrow(() -> new IOException(describe(key) + " is missing"));
        long expectedLength = Math.min(SECTOR_BYTES, manifest.fileBytes - written);
        if (sector.length != expectedLength || !Arrays.equals(sha1.digest(sector), key)) {
          throw new IOException(describe(key) + " does not match its SHA-1 or length");
        }
        out.write(sector);
        written += sector.length;
      }
    }
    if (written != manifest.fileBytes) {
      throw new IOException(
          "manifest: " + written + " bytes in sectors (expected: " + manifest.fileBytes + ")");
    }
    return written;
  }

  private static byte[] readChunk(LogStore store, int chunk, long sectorsLeft) throws IOException {
    byte[] keys =
        store
            .get(chunkKey(chunk))
            .orElseThrow(() -> new IOException("manifest chunk " + chunk + " is missing"));
    long expected = Math.min(KEYS_PER_CHUNK, sectorsLeft) * KEY_BYTES;
    if (keys.length != expected) {
      throw new IOException(
          "manifest chunk " + chunk + ": " + keys.length + " bytes (expected: " + expected + ")");
    }
    return keys;
  }

  private static Optional<Manifest> readManifest(LogStore store) throws IOException {
    Optional<byte[]> stored = store.get(MANIFEST_KEY);
    if (stored.isEmpty()) {
      return Optional.empty();
    }
    byte[] bytes = stored.get();
    if (bytes.length != MANIFEST_BYTES) {
      throw new IOException(
          "manifest: " + bytes.length + " bytes (expected: " + MANIFEST_BYTES + ")");
    }
    ByteBuffer buffer = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    long fileBytes = buffer.getLong();
    long sectors = Integer.toUnsignedLong(buffer.getInt());
    long expectedSectors = (fileBytes + SECTOR_BYTES - 1) / SECTOR_BYTES;
    if (fileBytes < 0 || sectors != expectedSectors) {
      throw new IOException(
          "manifest: "
              + sectors
              + " sectors for "
              + fileBytes
              + " bytes (expected: "
              + expectedSectors
              + ")");
    }
    return Optional.of(new Manifest(fileBytes, sectors));
  }

  private static int chunkCount(long sectors) {
    return (int) ((sectors + KEYS_PER_CHUNK - 1) / KEYS_PER_CHUNK);
  }

  private static byte[] chunkKey(int chunk) {
    return ("manifest/" + chunk).getBytes(StandardCharsets.US_ASCII);
  }

  private static String describe(byte[] key) {
    return "sector " + HexFormat.of().formatHex(key);
  }

  private static MessageDigest sha1() {
    try {
      return MessageDigest.getInstance("SHA-1");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime provides SHA-1", e);
    }
  }

  /** The manifest header: file length and sector count. */
  private static final class Manifest {
    final long fileBytes;
    final long sectors;

    Manifest(long fileBytes, long sectors) {
      this.fileBytes = fileBytes;
      this.sectors = sectors;
    }
  }
}
