package dev.cuckoo.bench.report;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.imageio.ImageIO;

/** A small scatter/line chart drawn with java.awt (headless) and saved as PNG. */
final class Plot {
  private static final int WIDTH = 960;
  private static final int HEIGHT = 600;
  private static final int LEFT = 80;
  private static final int RIGHT = 250;
  private static final int TOP = 50;
  private static final int BOTTOM = 60;
  private static final Color[] COLORS = {
    new Color(0xD62728), new Color(0x1F77B4), new Color(0x2CA02C), new Color(0xFF7F0E),
    new Color(0x9467BD), new Color(0x8C564B), new Color(0xE377C2), new Color(0x7F7F7F),
    new Color(0xBCBD22), new Color(0x17BECF), new Color(0x000000)
  };

  /** One named series of points, drawn joined by lines or as markers only. */
  record Series(String name, List<double[]> points, boolean lines) {}

  private final String title;
  private final String xLabel;
  private final String yLabel;
  private final boolean logX;
  private final boolean logY;
  private final List<Series> series = new ArrayList<>();

  Plot(String title, String xLabel, String yLabel, boolean logX, boolean logY) {
    this.title = title;
    this.xLabel = xLabel;
    this.yLabel = yLabel;
    this.logX = logX;
    this.logY = logY;
  }

  void add(Series s) {
    if (!s.points().isEmpty()) {
      series.add(s);
    }
  }

  void save(Path file) throws IOException {
    System.setProperty("java.awt.headless", "true");
    BufferedImage image = new BufferedImage(WIDTH, HEIGHT, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = image.createGraphics();
    g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, WIDTH, HEIGHT);
    double[] xr = range(0, logX);
    double[] yr = range(1, logY);
    g.setColor(Color.BLACK);
    g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
    g.drawString(title, LEFT, 30);
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
    int plotW = WIDTH - LEFT - RIGHT;
    int plotH = HEIGHT - TOP - BOTTOM;
    g.drawRect(LEFT, TOP, plotW, plotH);
    g.drawString(xLabel, LEFT + plotW / 2 - 60, HEIGHT - 15);
    g.rotate(-Math.PI / 2);
    g.drawString(yLabel, -(TOP + plotH / 2 + 60), 20);
    g.rotate(Math.PI / 2);
    ticks(g, xr, logX, true, plotW, plotH);
    ticks(g, yr, logY, false, plotW, plotH);
    for (int i = 0; i < series.size(); i++) {
      Series s = series.get(i);
      g.setColor(COLORS[i % COLORS.length]);
      g.setStroke(new BasicStroke(2f));
      int[] previous = null;
      for (double[] p : s.points()) {
        int x = LEFT + (int) Math.round(scale(p[0], xr, logX) * plotW);
        int y = TOP + plotH - (int) Math.round(scale(p[1], yr, logY) * plotH);
        if (s.points().size() < 30) {
          g.fillOval(x - 4, y - 4, 8, 8);
        }
        if (s.lines() && previous != null) {
          g.drawLine(previous[0], previous[1], x, y);
        }
        previous = new int[] {x, y};
      }
      int ly = TOP + 10 + 20 * i;
      g.fillRect(WIDTH - RIGHT + 15, ly - 8, 14, 8);
      g.setColor(Color.BLACK);
      g.drawString(s.name(), WIDTH - RIGHT + 35, ly);
    }
    g.dispose();
    ImageIO.write(image, "png", file.toFile());
  }

  private void ticks(Graphics2D g, double[] r, boolean log, boolean xAxis, int plotW, int plotH) {
    List<Double> values = new ArrayList<>();
    if (log) {
      for (double e = Math.floor(Math.log10(r[0])); e <= Math.ceil(Math.log10(r[1])); e++) {
        for (int m : new int[] {1, 2, 5}) {
          double v = m * Math.pow(10, e);
          if (v >= r[0] && v <= r[1]) {
            values.add(v);
          }
        }
      }
    } else {
      double step = niceStep((r[1] - r[0]) / 8);
      for (double v = Math.ceil(r[0] / step) * step; v <= r[1]; v += step) {
        values.add(v);
      }
    }
    for (double v : values) {
      double t = scale(v, r, log);
      String label = format(v);
      if (xAxis) {
        int x = LEFT + (int) Math.round(t * plotW);
        g.drawLine(x, TOP + plotH, x, TOP + plotH + 5);
        g.drawString(label, x - 4 * label.length(), TOP + plotH + 20);
      } else {
        int y = TOP + plotH - (int) Math.round(t * plotH);
        g.drawLine(LEFT - 5, y, LEFT, y);
        g.drawString(label, LEFT - 10 - 7 * label.length(), y + 4);
      }
    }
  }

  private static String format(double v) {
    if (v != 0 && (Math.abs(v) >= 1e5 || Math.abs(v) < 1e-2)) {
      return String.format(Locale.ROOT, "%.0e", v);
    }
    return v == Math.rint(v) ? String.valueOf((long) v) : String.format(Locale.ROOT, "%.2g", v);
  }

  private static double niceStep(double raw) {
    double p = Math.pow(10, Math.floor(Math.log10(raw)));
    for (double m : new double[] {1, 2, 5, 10}) {
      if (m * p >= raw) {
        return m * p;
      }
    }
    return 10 * p;
  }

  private double[] range(int axis, boolean log) {
    double min = Double.MAX_VALUE;
    double max = -Double.MAX_VALUE;
    for (Series s : series) {
      for (double[] p : s.points()) {
        min = Math.min(min, p[axis]);
        max = Math.max(max, p[axis]);
      }
    }
    if (min > max) {
      return new double[] {1, 10};
    }
    if (log) {
      return new double[] {min / 1.5, max * 1.5};
    }
    double pad = Math.max(1e-9, (max - min) * 0.08);
    return new double[] {Math.max(0, min - pad), max + pad};
  }

  private static double scale(double v, double[] r, boolean log) {
    return log
        ? (Math.log(v) - Math.log(r[0])) / (Math.log(r[1]) - Math.log(r[0]))
        : (v - r[0]) / (r[1] - r[0]);
  }
}
