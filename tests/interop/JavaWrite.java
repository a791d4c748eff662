// Writes a tagged interval log with Java HdrHistogram's HistogramLogWriter, and prints what
// Java computes on it (per tag: count, min, max, mean, values at the given percentiles) as JSON.
// Usage: java -cp hdrhistogram.jar JavaWrite.java OUT.hlog SEED WINDOWS PER_WINDOW PCT...
import org.HdrHistogram.*;
import java.io.*;
import java.util.*;

public class JavaWrite {
    public static void main(String[] a) throws Exception {
        String out = a[0];
        long seed = Long.parseLong(a[1]);
        int windows = Integer.parseInt(a[2]);
        int perWindow = Integer.parseInt(a[3]);
        double[] pcts = new double[a.length - 4];
        for (int i = 4; i < a.length; i++) pcts[i - 4] = Double.parseDouble(a[i]);
        Random rnd = new Random(seed);
        String[] tags = {"read", "write"};
        Map<String, Histogram> total = new LinkedHashMap<>();
        for (String t : tags) total.put(t, new Histogram(3600L * 1000 * 1000 * 1000, 3));
        try (PrintStream ps = new PrintStream(new FileOutputStream(out))) {
            HistogramLogWriter w = new HistogramLogWriter(ps);
            long start = 1764489600000L;
            w.outputLogFormatVersion();
            w.outputStartTime(start);
            w.setBaseTime(start);
            w.outputBaseTime(start);
            w.outputLegend();
            for (int s = 0; s < windows; s++) {
                for (String t : tags) {
                    Histogram h = new Histogram(3600L * 1000 * 1000 * 1000, 3);
                    double scale = t.equals("read") ? 80_000 : 25_000;
                    for (int i = 0; i < perWindow; i++) {
                        // log-normal body with a rare slow tail
                        double v = scale * Math.exp(0.5 * rnd.nextGaussian());
                        if (rnd.nextInt(2000) == 0) v *= 40;
                        h.recordValue((long) v);
                    }
                    h.setStartTimeStamp(start + s * 1000L);
                    h.setEndTimeStamp(start + s * 1000L + 1000L);
                    h.setTag(t);
                    w.outputIntervalHistogram(h);
                    total.get(t).add(h);
                }
            }
        }
        StringBuilder sb = new StringBuilder("{");
        boolean first = true;
        for (Map.Entry<String, Histogram> e : total.entrySet()) {
            Histogram h = e.getValue();
            if (!first) sb.append(",");
            first = false;
            sb.append("\"").append(e.getKey()).append("\":{\"count\":").append(h.getTotalCount())
              .append(",\"min\":").append(h.getMinValue()).append(",\"max\":").append(h.getMaxValue())
              .append(",\"mean\":").append(h.getMean()).append(",\"values\":[");
            for (int i = 0; i < pcts.length; i++) {
                if (i > 0) sb.append(",");
                sb.append(h.getValueAtPercentile(pcts[i]));
            }
            sb.append("]}");
        }
        sb.append("}");
        System.out.println(sb);
    }
}
