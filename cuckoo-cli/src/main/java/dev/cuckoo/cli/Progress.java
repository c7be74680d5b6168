package dev.cuckoo.cli;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * A one-line progress bar on stderr (items, items/s, percentage and ETA when the total is known),
 * redrawn at most a few times a second. Disabled, it prints nothing: commands enable it only when
 * {@link System#console()} is not null, so pipes and logs stay quiet.
 */
final class Progress {
  private static final long REDRAW_NANOS = 250_000_000L;
  private static final int CHECK_EVERY = 4096;

  private final PrintWriter err;
  private final boolean enabled;
  private final String label;
  private final long total;
  private final LongSupplier clock;
  private final long start;
  private long nextRedraw;
  private int width;

  /**
   * Creates a progress bar.
   *
   * @param err where to draw
   * @param enabled false to print nothing at all
   * @param label what is being done, e.g. "building"
   * @param total the number of items expected, or a negative value if unknown
   * @param clock the time source in nanoseconds ({@code System::nanoTime})
   */
  Progress(PrintWriter err, boolean enabled, String label, long total, LongSupplier clock) {
    this.err = err;
    this.enabled = enabled;
    this.label = label;
    this.total = total;
    this.clock = clock;
    this.start = clock.getAsLong();
    this.nextRedraw = start + REDRAW_NANOS;
  }

  /**
   * Returns a progress bar that draws only if the process has a console.
   *
   * @param err where to draw
   * @param label what is being done
   * @param total the expected number of items, or negative if unknown
   * @return the progress bar
   */
  static Progress onConsole(PrintWriter err, String label, long total) {
    return new Progress(err, System.console() != null, label, total, System::nanoTime);
  }

  /**
   * Reports that {@code done} items are done; cheap enough to call for every item.
   *
   * @param done items done so far
   */
  void update(long done) {
    if (!enabled || (done % CHECK_EVERY) != 0) {
      return;
    }
    long now = clock.getAsLong();
    if (now - nextRedraw < 0) {
      return;
    }
    nextRedraw = now + REDRAW_NANOS;
    draw(render(done, now - start));
  }

  /** Clears the bar, leaving the cursor at the start of an empty line. */
  void finish() {
    if (enabled && width > 0) {
      err.print("\r" + " ".repeat(width) + "\r");
      err.flush();
      width = 0;
    }
  }

  /**
   * Returns the bar's text after {@code done} items in {@code elapsedNanos}.
   *
   * @param done items done
   * @param elapsedNanos time since the start
   * @return e.g. {@code "building 1,000,000 / 4,000,000 items 25.0% 2.00 M/s ETA 0:02"}
   */
  String render(long done, long elapsedNanos) {
    double seconds = Math.max(elapsedNanos, 1) / 1e9;
    double rate = done / seconds;
    StringBuilder text = new StringBuilder(label).append("  ").append(Text.count(done));
    if (total > 0) {
      text.append(" / ").append(Text.count(total)).append(" items  ");
      text.append(String.format(Locale.ROOT, "%.1f%%", Math.min(100.0, 100.0 * done / total)));
    } else {
      text.append(" items");
    }
    text.append("  ").append(Text.rate(rate));
    if (total > 0 && rate > 0 && done < total) {
      long eta = (long) Math.ceil((total - done) / rate);
      text.append(String.format(Locale.ROOT, "  ETA %d:%02d", eta / 60, eta % 60));
    }
    return text.toString();
  }

  private void draw(String text) {
    String padded = text.length() < width ? text + " ".repeat(width - text.length()) : text;
    width = text.length();
    err.print("\r" + padded);
    err.flush();
  }
}
