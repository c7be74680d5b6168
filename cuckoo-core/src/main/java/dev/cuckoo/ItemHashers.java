package dev.cuckoo;

import com.dynatrace.hash4j.hashing.Hasher64;
import com.dynatrace.hash4j.hashing.Hashing;
import java.nio.ByteBuffer;
import org.apache.commons.codec.digest.MurmurHash2;

/**
 * The built-in {@link ItemHasher}s.
 *
 * <p>{@link #utf8()}, {@link #bytes()}, {@link #byteBuffers()} and {@link #longs()} use XXH3-64
 * (hash4j), the default for {@link Scheme#STANDARD} filters. {@link #redisUtf8()} and {@link
 * #redisBytes()} use MurmurHash64A with seed 0, the hash RedisBloom uses, for {@link
 * Scheme#REDISBLOOM} filters that must agree bit for bit with Redis's {@code CF.*} commands.
 *
 * <p>Strings are always hashed as their UTF-8 bytes, so the library, the CLI and the server give
 * the same answer for the same text, and {@code utf8().hash(s) == bytes().hash(s.getBytes(UTF_8))}.
 * Unpaired surrogates are encoded as {@code '?'}, as {@link String#getBytes} does. Every hasher
 * here is thread-safe and does not allocate for items up to 64 KiB (a scratch array per thread).
 */
public final class ItemHashers {
  static final int ID_UTF8 = 1;
  static final int ID_BYTES = 2;
  static final int ID_BYTE_BUFFERS = 3;
  static final int ID_LONGS = 4;
  static final int ID_REDIS_UTF8 = 5;
  static final int ID_REDIS_BYTES = 6;

  private static final Hasher64 XXH3 = Hashing.xxh3_64();
  private static final int SCRATCH_INITIAL_BYTES = 4096;
  private static final int SCRATCH_KEEP_BYTES = 64 * 1024;
  private static final ThreadLocal<byte[]> SCRATCH =
      ThreadLocal.withInitial(() -> new byte[SCRATCH_INITIAL_BYTES]);

  private static final ItemHasher<CharSequence> UTF8 =
      new Builtin<>(ID_UTF8, "utf8") {
        @Override
        public long hash(CharSequence item) {
          byte[] buffer = scratch(maxUtf8Length(item));
          int length = encodeUtf8(item, buffer);
          return XXH3.hashBytesToLong(buffer, 0, length);
        }
      };
  private static final ItemHasher<byte[]> BYTES =
      new Builtin<>(ID_BYTES, "bytes") {
        @Override
        public long hash(byte[] item) {
          return XXH3.hashBytesToLong(item);
        }
      };
  private static final ItemHasher<ByteBuffer> BYTE_BUFFERS =
      new Builtin<>(ID_BYTE_BUFFERS, "byteBuffers") {
        @Override
        public long hash(ByteBuffer item) {
          int length = item.remaining();
          if (item.hasArray()) {
            return XXH3.hashBytesToLong(item.array(), item.arrayOffset() + item.position(), length);
          }
          byte[] buffer = scratch(length);
          item.get(item.position(), buffer, 0, length);
          return XXH3.hashBytesToLong(buffer, 0, length);
        }
      };
  private static final ItemHasher<Long> LONGS =
      new Builtin<>(ID_LONGS, "longs") {
        @Override
        public long hash(Long item) {
          return hashLong(item);
        }
      };
  private static final ItemHasher<CharSequence> REDIS_UTF8 =
      new Builtin<>(ID_REDIS_UTF8, "redisUtf8") {
        @Override
        public long hash(CharSequence item) {
          byte[] buffer = scratch(maxUtf8Length(item));
          int length = encodeUtf8(item, buffer);
          return MurmurHash2.hash64(buffer, length, 0);
        }
      };
  private static final ItemHasher<byte[]> REDIS_BYTES =
      new Builtin<>(ID_REDIS_BYTES, "redisBytes") {
        @Override
        public long hash(byte[] item) {
          return MurmurHash2.hash64(item, item.length, 0);
        }
      };

  private ItemHashers() {}

  /**
   * Returns the hasher for text: XXH3-64 of the UTF-8 encoding of a {@link CharSequence}.
   *
   * @return the UTF-8 text hasher
   */
  public static ItemHasher<CharSequence> utf8() {
    return UTF8;
  }

  /**
   * Returns the hasher for byte arrays: XXH3-64 of the whole array.
   *
   * @return the byte-array hasher
   */
  public static ItemHasher<byte[]> bytes() {
    return BYTES;
  }

  /**
   * Returns the hasher for byte buffers: XXH3-64 of the bytes between position and limit. The
   * buffer's position is not changed.
   *
   * @return the byte-buffer hasher
   */
  public static ItemHasher<ByteBuffer> byteBuffers() {
    return BYTE_BUFFERS;
  }

  /**
   * Returns the hasher for {@code Long} keys: XXH3-64 of the 8-byte value, the same as {@link
   * #hashLong(long)}. To avoid boxing, hash with {@link #hashLong(long)} and use the filter's
   * hash-level methods ({@code addHash}, {@code mightContainHash}, ...).
   *
   * @return the long hasher
   */
  public static ItemHasher<Long> longs() {
    return LONGS;
  }

  /**
   * Returns the RedisBloom-compatible text hasher: MurmurHash64A, seed 0, of the UTF-8 bytes.
   *
   * @return the RedisBloom text hasher
   */
  public static ItemHasher<CharSequence> redisUtf8() {
    return REDIS_UTF8;
  }

  /**
   * Returns the RedisBloom-compatible byte-array hasher: MurmurHash64A, seed 0.
   *
   * @return the RedisBloom byte-array hasher
   */
  public static ItemHasher<byte[]> redisBytes() {
    return REDIS_BYTES;
  }

  /**
   * Returns the hash of a primitive {@code long} key, equal to {@code longs().hash(key)}, without
   * boxing.
   *
   * @param key the key
   * @return XXH3-64 of the key
   */
  public static long hashLong(long key) {
    return XXH3.hashLongToLong(key);
  }

  /**
   * Returns the built-in hasher with the given id, or {@code null} if there is none.
   *
   * @param id a hasher id as returned by {@link ItemHasher#id()}
   * @return the hasher, or {@code null}
   */
  static ItemHasher<?> byId(int id) {
    switch (id) {
      case ID_UTF8:
        return UTF8;
      case ID_BYTES:
        return BYTES;
      case ID_BYTE_BUFFERS:
        return BYTE_BUFFERS;
      case ID_LONGS:
        return LONGS;
      case ID_REDIS_UTF8:
        return REDIS_UTF8;
      case ID_REDIS_BYTES:
        return REDIS_BYTES;
      default:
        return null;
    }
  }

  private static byte[] scratch(int length) {
    byte[] buffer = SCRATCH.get();
    if (buffer.length < length) {
      buffer = new byte[length];
      if (length <= SCRATCH_KEEP_BYTES) {
        SCRATCH.set(buffer);
      }
    }
    return buffer;
  }

  private static int maxUtf8Length(CharSequence text) {
    return Math.multiplyExact(text.length(), 3);
  }

  /** Encodes {@code text} as UTF-8 into {@code out} (at least 3 bytes per char); returns length. */
  static int encodeUtf8(CharSequence text, byte[] out) {
    int n = text.length();
    int pos = 0;
    for (int i = 0; i < n; i++) {
      char c = text.charAt(i);
      if (c < 0x80) {
        out[pos++] = (byte) c;
      } else if (c < 0x800) {
        out[pos++] = (byte) (0xC0 | (c >>> 6));
        out[pos++] = (byte) (0x80 | (c & 0x3F));
      } else if (Character.isSurrogate(c)) {
        char low = i + 1 < n ? text.charAt(i + 1) : 0;
        if (Character.isHighSurrogate(c) && Character.isLowSurrogate(low)) {
          int cp = Character.toCodePoint(c, low);
          i++;
          out[pos++] = (byte) (0xF0 | (cp >>> 18));
          out[pos++] = (byte) (0x80 | ((cp >>> 12) & 0x3F));
          out[pos++] = (byte) (0x80 | ((cp >>> 6) & 0x3F));
          out[pos++] = (byte) (0x80 | (cp & 0x3F));
        } else {
          out[pos++] = (byte) '?';
        }
      } else {
        out[pos++] = (byte) (0xE0 | (c >>> 12));
        out[pos++] = (byte) (0x80 | ((c >>> 6) & 0x3F));
        out[pos++] = (byte) (0x80 | (c & 0x3F));
      }
    }
    return pos;
  }

  private abstract static class Builtin<T> implements ItemHasher<T> {
    private final int id;
    private final String name;

    Builtin(int id, String name) {
      this.id = id;
      this.name = name;
    }

    @Override
    public final int id() {
      return id;
    }

    @Override
    public final String toString() {
      return "ItemHashers." + name + "()";
    }
  }
}
