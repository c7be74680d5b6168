package dev.cuckoo.server.pubsub;

import java.util.Arrays;

/** A channel name or pattern as bytes, usable as a hash key (equal bytes, equal names). */
final class ChannelName {
  private final byte[] bytes;
  private final int hash;

  ChannelName(byte[] bytes) {
    this.bytes = bytes;
    this.hash = Arrays.hashCode(bytes);
  }

  /** Returns the bytes (not copied: callers never change them). */
  byte[] bytes() {
    return bytes;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof ChannelName name && Arrays.equals(bytes, name.bytes);
  }

  @Override
  public int hashCode() {
    return hash;
  }
}
