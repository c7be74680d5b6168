package dev.cuckoo.server.rdb;

/**
 * Redis's {@code crc64}: the CRC-64 with the Jones polynomial {@code 0xad93d23594c935a9}, reflected
 * input and output, initial value 0 and no final XOR; {@code crc64("123456789") ==
 * 0xe9c6d914c4b8d9caL}. A DUMP payload ends with this CRC of every byte before it, little-endian.
 */
public final class Crc64 {
  /*
   * Byte-at-a-time table form of the reflected CRC: the register shifts right, and the polynomial
   * is used bit-reversed (0xad93d23594c935a9 reversed is 0x95ac9329ac4bc9b5).
   */
  private static final long REFLECTED_POLYNOMIAL = Long.reverse(0xad93d23594c935a9L);

  private static final long[] TABLE = new long[256];

  static {
    for (int b = 0; b < 256; b++) {
      long crc = b;
      for (int bit = 0; bit < 8; bit++) {
        crc = (crc & 1) != 0 ? (crc >>> 1) ^ REFLECTED_POLYNOMIAL : crc >>> 1;
      }
      TABLE[b] = crc;
    }
  }

  private Crc64() {}

  /**
   * Returns the CRC64 of {@code length} bytes of {@code data} from {@code offset}.
   *
   * @param data the bytes
   * @param offset the first byte
   * @param length how many bytes
   * @return the CRC, as Redis's {@code crc64(0, data + offset, length)}
   * @throws IndexOutOfBoundsException if the range is outside {@code data}
   */
  public static long of(byte[] data, int offset, int length) {
    return update(0, data, offset, length);
  }

  /**
   * Returns {@code crc} extended over {@code length} bytes of {@code data} from {@code offset}: the
   * CRC of a stream read in pieces, as Redis's {@code crc64(crc, data + offset, length)}.
   *
   * @param crc the CRC of the bytes before these (0 at the start)
   * @param data the bytes
   * @param offset the first byte
   * @param length how many bytes
   * @return the CRC of the bytes before and these
   * @throws IndexOutOfBoundsException if the range is outside {@code data}
   */
  public static long update(long crc, byte[] data, int offset, int length) {
    java.util.Objects.checkFromIndexSize(offset, length, data.length);
    for (int i = offset; i < offset + length; i++) {
      crc = TABLE[(int) ((crc ^ data[i]) & 0xFF)] ^ (crc >>> 8);
    }
    return crc;
  }
}
