package dev.cuckoo.server.rdb;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The {@code FUNCTION DUMP} / {@code FUNCTION RESTORE} payload of a function library, for a server
 * that runs no scripts: its library is always empty. An empty library's payload is Redis's, byte
 * for byte: no function record, then the footer of every DUMP payload (RDB version, CRC64).
 *
 * <pre>{@code
 * byte[] dump = FunctionPayload.emptyLibrary(); // 0a 00 5d 9b 5c 40 0f 7f a2 da
 * String refusal = FunctionPayload.restoreRefusal(dump); // null: nothing to load
 * }</pre>
 */
public final class FunctionPayload {
  /*
   * The version written is Redis 7.0's RDB version (10), not the DUMP payload's 12: the body is
   * empty in every version, and Redis 7.0 refuses a payload whose version is newer than its own, so
   * version 10 is the one every Redis with functions (7.0 and later) restores.
   */

  /** The RDB version of the payload written: Redis 7.0's. */
  public static final int RDB_VERSION = 10;

  // rdb.h: a library (RDB_OPCODE_FUNCTION2) and the format before 7.0 GA
  // (RDB_OPCODE_FUNCTION_PRE_GA)
  private static final int OPCODE_FUNCTION2 = 245;
  private static final int OPCODE_FUNCTION_PRE_GA = 246;
  private static final int FOOTER_BYTES = 10;

  private FunctionPayload() {}

  /** Returns the payload of an empty function library, as Redis 7.0's FUNCTION DUMP answers it. */
  public static byte[] emptyLibrary() {
    ByteBuffer payload = ByteBuffer.allocate(FOOTER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    payload.putShort((short) RDB_VERSION);
    payload.putLong(Crc64.of(payload.array(), 0, 2));
    return payload.array();
  }

  /**
   * Returns why FUNCTION RESTORE refuses a payload, in Redis's words where Redis has them, or null
   * for a valid payload of an empty library (restoring it changes nothing).
   *
   * @param payload the payload
   */
  public static String restoreRefusal(byte[] payload) {
    try {
      DumpPayload.verify(payload);
    } catch (DumpPayloadException e) {
      return "ERR DUMP payload version or checksum are wrong";
    }
    if (payload.length == FOOTER_BYTES) {
      return null;
    }
    int type = payload[0] & 0xFF;
    if (type == OPCODE_FUNCTION_PRE_GA) {
      return "ERR Pre-GA function format not supported";
    }
    if (type != OPCODE_FUNCTION2) {
      return "ERR given type is not a function";
    }
    return "ERR the payload holds functions, and this server runs no scripts: only a payload of an"
        + " empty library can be restored";
  }
}
