package dev.cuckoo.server.keyspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The heap guard's reserve and its reading of collections; the server's behaviour at the heap's
 * edge is tested with child processes in {@code dev.cuckoo.server.HeapGuardTest}.
 */
class HeapGuardTest {
  @Test
  void observed_withinReserve_refusesUntilBelowAgain() {
    long max = 1L << 30;
    HeapGuard guard = new HeapGuard(max);
    assertEquals(max / 10, guard.reserveBytes());
    guard.observed(max - guard.reserveBytes());
    assertFalse(guard.low(), "exactly at the reserve");
    guard.observed(max - guard.reserveBytes() + 1);
    assertTrue(guard.low(), "inside the reserve");
    guard.observed(max / 2);
    assertFalse(guard.low(), "room again");
  }

  @Test
  void reserveFor_smallAndHugeHeaps_boundedBetween32And512MiB() {
    assertEquals(16L << 20, HeapGuard.reserveFor(64L << 20), "a quarter of a tiny heap");
    assertEquals(32L << 20, HeapGuard.reserveFor(200L << 20));
    assertEquals(512L << 20, HeapGuard.reserveFor(64L << 30));
  }

  @Test
  void outOfMemory_causeChain_found() {
    assertTrue(HeapGuard.outOfMemory(new RuntimeException(new OutOfMemoryError("x"))));
    assertFalse(HeapGuard.outOfMemory(new RuntimeException(new IllegalStateException())));
  }
}
