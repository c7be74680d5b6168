package dev.cuckoo;

import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * The serialized form of a {@link RedisCuckooFilter} as it was at one moment, written later while
 * the filter goes on changing: the bytes {@link RedisCuckooFilter#writeTo} would have written at
 * that moment, without a copy of the filter. {@link RedisCuckooFilter#captureImage} takes it; a
 * snapshot writes a big filter this way, so that writes to the filter need not wait for the disk.
 *
 * <pre>{@code
 * FilterImage image;
 * lock.lock();                      // the lock that guards the filter's writes
 * try {
 *   image = filter.captureImage();
 * } finally {
 *   lock.unlock();
 * }
 * try {
 *   image.writeTo(out);             // writes of the filter go on meanwhile
 * } finally {
 *   image.close();                  // without the lock
 * }
 * }</pre>
 *
 * <p>Thread-safety: one thread writes the image while writers of the filter, synchronized among
 * themselves as any writes of the filter, go on. {@link RedisCuckooFilter#captureImage} must be
 * called under the lock that guards the filter's writes; {@link #writeTo} and {@link #close} must
 * not (the first would stop them for the whole write; a writer waiting for the copy budget holds
 * that lock until the region it changes is written or the image closed).
 */
public final class FilterImage implements Closeable {
  /*
   * Copy on write, as a fork's snapshot gets it from the kernel. At the capture the image keeps
   * the chain's header (80 bytes: link count, item and delete counts, ...) and, for each link, a
   * TableImage over the link's table, which it attaches to the table: from then on every change of
   * the table's payload (insert, set, kick, clear, LOADCHUNK's payload write; compaction and
   * deletes go through set) first copies aside the 4 KiB regions it touches that the image has
   * not written yet. The image writes each region from its copy if there is one, else from the
   * live table, and marks it written, so later changes of that region copy nothing. Links added
   * after the capture are not in the header and not written; a link removed after it is still
   * written, from its table, which the image keeps. A one-link compact chain (at most 64 KiB of
   * slots) is serialized whole at the capture instead.
   */
  private final byte[] header;
  private final List<TableImage> links;
  private final byte[] buffer;

  /** The whole serialized form, for a compact chain; null otherwise. */
  private final byte[] serialized;

  private OutputStream out;
  private FormatOutput output;
  private int link;
  private int region;
  private boolean closed;

  private FilterImage(byte[] header, List<TableImage> links, byte[] serialized) {
    this.header = header;
    this.links = links;
    this.serialized = serialized;
    this.buffer = links.isEmpty() ? null : new byte[TableImage.REGION_BYTES];
  }

  /**
   * Captures {@code chain} as it is now, its copies aside holding at most {@code copyBudgetBytes}
   * at once; see {@link RedisCuckooFilter#captureImage(long)}.
   */
  static FilterImage capture(RedisChain chain, ItemHasher<?> hasher, long copyBudgetBytes) {
    TableImage.CopyBudget budget = new TableImage.CopyBudget(copyBudgetBytes);
    List<TableImage> links = new ArrayList<>(chain.linkCount());
    for (RedisLink link : chain.links()) {
      links.add(new TableImage(link.table, budget));
    }
    int attached = 0;
    try {
      for (TableImage image : links) {
        image.attach();
        attached++;
      }
    } catch (IllegalStateException e) {
      links.subList(0, attached).forEach(TableImage::detach);
      throw e;
    }
    return new FilterImage(ChainFormat.redisHeader(chain, hasher), links, null);
  }

  /** Captures a compact chain by serializing it now (it is at most 64 KiB of slots). */
  static FilterImage capture(CompactRedisChain compact, ItemHasher<?> hasher) {
    ByteArrayOutputStream bytes =
        new ByteArrayOutputStream(Math.toIntExact(ChainFormat.serializedBytes(compact)));
    try {
      ChainFormat.writeRedis(compact, hasher, bytes);
    } catch (IOException e) {
      throw new AssertionError("a byte array stream does not fail", e);
    }
    return new FilterImage(null, List.of(), bytes.toByteArray());
  }

  /**
   * Writes the filter as it was at the capture to {@code out}, in the format of {@link
   * RedisCuckooFilter#writeTo} (the same bytes, the same CRC32C). Once a region is written its copy
   * is dropped and writers no longer copy it; {@link #close} ends the image. Does not close {@code
   * out}. At most once per image.
   *
   * @param out the stream to write to
   * @throws IOException if {@code out} fails (the image must still be closed)
   * @throws IllegalStateException if the image was written or closed already
   * @throws NullPointerException if {@code out} is null
   */
  public void writeTo(OutputStream out) throws IOException {
    start(out);
    finish();
  }

  /**
   * Ends the image: the filter's writers stop copying regions for it (those waiting for the copy
   * budget go on) and the copies made are dropped. Call it once the image is written or when it
   * will not be, without the lock that guards the filter's writes (a writer waiting for the budget
   * holds it); calling it again does nothing.
   */
  @Override
  public void close() {
    closed = true;
    for (TableImage image : links) {
      image.detach();
    }
  }

  /** Writes the header (the first step of {@link #writeTo}; tests interleave the steps). */
  void start(OutputStream out) throws IOException {
    Checks.requireNonNull(out, "out");
    if (closed || output != null) {
      throw new IllegalStateException("image: already written or closed");
    }
    this.out = out;
    output = new FormatOutput(out);
    if (serialized != null) {
      out.write(serialized);
    } else {
      output.write(header, 0, ChainFormat.HEADER_BYTES);
    }
  }

  /** Writes up to {@code count} more regions of the links' payload; returns true if some remain. */
  boolean writeRegions(int count) throws IOException {
    for (int written = 0; written < count && link < links.size(); written++) {
      TableImage image = links.get(link);
      output.write(image.take(region, buffer), 0, image.regionLength(region));
      if (++region == image.regionCount()) {
        link++;
        region = 0;
      }
    }
    return link < links.size();
  }

  /** Writes the CRC32C after the last region (every region's copy has been taken and dropped). */
  void finish() throws IOException {
    if (writeRegions(Integer.MAX_VALUE)) {
      throw new IllegalStateException("image: regions left");
    }
    if (serialized == null) {
      output.writeCrc();
    }
    out.flush();
  }

  /** Returns the bytes writers copied aside for this image so far (tests). */
  long savedBytes() {
    long bytes = 0;
    for (TableImage image : links) {
      bytes += image.savedBytes();
    }
    return bytes;
  }
}
