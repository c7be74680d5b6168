package dev.cuckoo.server.cluster;

/**
 * The hash slot of a key: CRC16 (XMODEM: polynomial 0x1021, initial value 0, no reflection) of the
 * key, or of its hash tag, modulo 16384, as Redis Cluster's keyHashSlot computes it.
 *
 * <p>A hash tag is the text between the first {@code {} and the first {@code }} after it, if that
 * text is not empty: {@code {user1000}.following} and {@code {user1000}.followers} share a slot.
 */
public final class HashSlots {
  /** The number of hash slots. */
  public static final int SLOTS = 16384;

  // CRC16-CCITT/XMODEM table: entry i is the CRC of the byte i (polynomial 0x1021)
  private static final int[] TABLE = table();

  private HashSlots() {}

  private static int[] table() {
    int[] table = new int[256];
    for (int i = 0; i < 256; i++) {
      int crc = i << 8;
      for (int bit = 0; bit < 8; bit++) {
        crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
      }
      table[i] = crc & 0xFFFF;
    }
    return table;
  }

  /** Returns the CRC16 (XMODEM) of {@code bytes[from..to)}. */
  static int crc16(byte[] bytes, int from, int to) {
    int crc = 0;
    for (int i = from; i < to; i++) {
      crc = ((crc << 8) ^ TABLE[((crc >>> 8) ^ bytes[i]) & 0xFF]) & 0xFFFF;
    }
    return crc;
  }

  /** Returns the hash slot (0..16383) of a key. */
  public static int slot(byte[] key) {
    int open = 0;
    while (open < key.length && key[open] != '{') {
      open++;
    }
    if (open == key.length) {
      return crc16(key, 0, key.length) & (SLOTS - 1);
    }
    int close = open + 1;
    while (close < key.length && key[close] != '}') {
      close++;
    }
    if (close == key.length || close == open + 1) {
      return crc16(key, 0, key.length) & (SLOTS - 1);
    }
    return crc16(key, open + 1, close) & (SLOTS - 1);
  }
}
