package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import io.netty.util.internal.logging.InternalLoggerFactory;
import io.netty.util.internal.logging.JdkLoggerFactory;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test class if Netty's leak detector (paranoid level, set in the surefire argLine) reports
 * a buffer that was garbage-collected without being released.
 */
public final class LeakCheck implements BeforeAllCallback, AfterAllCallback {
  private static final List<String> LEAKS = new CopyOnWriteArrayList<>();

  static {
    // Netty only reports leaks when its logger has ERROR enabled; slf4j's NOP logger does not.
    InternalLoggerFactory.setDefaultFactory(JdkLoggerFactory.INSTANCE);
    ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(
        new ResourceLeakDetectorFactory() {
          @Override
          @SuppressWarnings("deprecation")
          public <T> ResourceLeakDetector<T> newResourceLeakDetector(
              Class<T> resource, int samplingInterval, long maxActive) {
            return newResourceLeakDetector(resource, samplingInterval);
          }

          @Override
          public <T> ResourceLeakDetector<T> newResourceLeakDetector(
              Class<T> resource, int samplingInterval) {
            return new ResourceLeakDetector<T>(resource, samplingInterval) {
              @Override
              protected void reportTracedLeak(String type, String records) {
                LEAKS.add(type + records);
              }

              @Override
              protected void reportUntracedLeak(String type) {
                LEAKS.add(type);
              }
            };
          }
        });
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    LEAKS.clear();
  }

  @Override
  public void afterAll(ExtensionContext context) throws InterruptedException {
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(50);
      // allocations poll the detector's reference queue and report collected leaks
      for (int j = 0; j < 100; j++) {
        ByteBuf probe = PooledByteBufAllocator.DEFAULT.buffer(16);
        probe.release();
      }
    }
    assertEquals(List.of(), LEAKS, "Netty buffer leaks");
  }
}
