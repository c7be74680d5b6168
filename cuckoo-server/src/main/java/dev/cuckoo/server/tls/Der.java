package dev.cuckoo.server.tls;

import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.util.Arrays;

/**
 * The little of ASN.1 DER the key and DH parameter files need (ITU-T X.690): reading the elements
 * of a SEQUENCE one after another, and writing an element from its tag and content.
 */
final class Der {
  /** Tag of an INTEGER. */
  static final int INTEGER = 0x02;

  /** Tag of an OCTET STRING. */
  static final int OCTET_STRING = 0x04;

  /** Tag of a NULL. */
  static final int NULL = 0x05;

  /** Tag of an OBJECT IDENTIFIER. */
  static final int OID = 0x06;

  /** Tag of a (constructed) SEQUENCE. */
  static final int SEQUENCE = 0x30;

  /** Tag of the context-specific, constructed field [0]. */
  static final int CONTEXT_0 = 0xa0;

  private final byte[] bytes;
  private int position;
  private final int end;

  private Der(byte[] bytes, int start, int end) {
    this.bytes = bytes;
    this.position = start;
    this.end = end;
  }

  /**
   * Returns a reader of the elements inside the SEQUENCE that {@code encoded} is.
   *
   * @throws IllegalArgumentException if it is not one DER SEQUENCE
   */
  static Der sequence(byte[] encoded) {
    Der outer = new Der(encoded, 0, encoded.length);
    Der inner = outer.enter(SEQUENCE);
    if (outer.hasMore()) {
      throw new IllegalArgumentException("bytes after the DER sequence");
    }
    return inner;
  }

  /** Returns true while elements remain. */
  boolean hasMore() {
    return position < end;
  }

  /** Returns the tag of the next element (which must exist). */
  int peekTag() {
    if (!hasMore()) {
      throw new IllegalArgumentException("DER sequence ended early");
    }
    return bytes[position] & 0xff;
  }

  /** Reads the next element, which must have {@code tag}, and returns a reader of its content. */
  Der enter(int tag) {
    int found = peekTag();
    if (found != tag) {
      throw new IllegalArgumentException(
          "DER tag 0x"
              + Integer.toHexString(found)
              + " (expected: 0x"
              + Integer.toHexString(tag)
              + ")");
    }
    position++;
    int length = readLength();
    if (length > end - position) {
      throw new IllegalArgumentException(
          "DER length " + length + " (expected: <= " + (end - position) + ")");
    }
    Der content = new Der(bytes, position, position + length);
    position += length;
    return content;
  }

  private int readLength() {
    if (!hasMore()) {
      throw new IllegalArgumentException("DER length missing");
    }
    int first = bytes[position++] & 0xff;
    if (first < 0x80) {
      return first;
    }
    int count = first & 0x7f;
    if (count == 0 || count > 3) {
      throw new IllegalArgumentException("DER length of " + count + " bytes (expected: 1..3)");
    }
    int length = 0;
    for (int i = 0; i < count; i++) {
      if (!hasMore()) {
        throw new IllegalArgumentException("DER length cut short");
      }
      length = (length << 8) | (bytes[position++] & 0xff);
    }
    return length;
  }

  /** Reads the next element, which must have {@code tag}, and returns its content bytes. */
  byte[] read(int tag) {
    Der content = enter(tag);
    return Arrays.copyOfRange(content.bytes, content.position, content.end);
  }

  /** Reads the next element, an INTEGER. */
  BigInteger integer() {
    return new BigInteger(read(INTEGER));
  }

  /** Returns the encoding of an element: its tag, its length, its content. */
  static byte[] element(int tag, byte[]... parts) {
    ByteArrayOutputStream content = new ByteArrayOutputStream();
    for (byte[] part : parts) {
      content.writeBytes(part);
    }
    int length = content.size();
    ByteArrayOutputStream out = new ByteArrayOutputStream(length + 6);
    out.write(tag);
    if (length < 0x80) {
      out.write(length);
    } else {
      int count = length < 0x100 ? 1 : length < 0x10000 ? 2 : 3;
      out.write(0x80 | count);
      for (int shift = 8 * (count - 1); shift >= 0; shift -= 8) {
        out.write(length >>> shift);
      }
    }
    out.writeBytes(content.toByteArray());
    return out.toByteArray();
  }
}
