package dev.cuckoo;

import java.io.IOException;
import java.io.OutputStream;
import java.util.zip.CRC32C;

/**
 * A sink for serialized filter bytes that keeps a running CRC32C. Large arrays are written in
 * slices of {@value FormatInput#CHUNK_BYTES} bytes, so streams that copy each write into a native
 * buffer (such as {@link java.io.FileOutputStream}) never copy a whole table page.
 */
final class FormatOutput {
  private final OutputStream out;
  private final CRC32C crc = new CRC32C();

  FormatOutput(OutputStream out) {
    this.out = Checks.requireNonNull(out, "out");
  }

  /** Restarts the running CRC32C. */
  void resetCrc() {
    crc.reset();
  }

  /** Writes {@code length} bytes of {@code src}, updating the CRC. */
  void write(byte[] src, int srcOffset, int length) throws IOException {
    int done = 0;
    while (done < length) {
      int n = Math.min(length - done, FormatInput.CHUNK_BYTES);
      out.write(src, srcOffset + done, n);
      crc.update(src, srcOffset + done, n);
      done += n;
    }
  }

  /** Writes a table's payload straight from its pages (without their padding). */
  void writePayload(BucketTable table) throws IOException {
    for (int i = 0; i < table.pageCount(); i++) {
      write(table.page(i), 0, table.pagePayloadBytes(i));
    }
  }

  /** Writes the CRC32C of the bytes written since the last reset, little-endian (not covered). */
  void writeCrc() throws IOException {
    int value = (int) crc.getValue();
    out.write(
        new byte[] {
          (byte) value, (byte) (value >>> 8), (byte) (value >>> 16), (byte) (value >>> 24)
        });
  }
}
