// Reads an interval log with Java HdrHistogram's HistogramLogReader and prints, per tag
// ("untagged" for none), count, min, max, mean and the values at the given percentiles, as JSON.
// Usage: java -cp hdrhistogram.jar JavaRead.java IN.hlog PCT...
import org.HdrHistogram.*;
import java.util.*;

public class JavaRead {
    public static void main(String[] a) throws Exception {
        double[] pcts = new double[a.length - 1];
        for (int i = 1; i < a.length; i++) pcts[i - 1] = Double.parseDouble(a[i]);
        HistogramLogReader r = new HistogramLogReader(a[0]);
        Map<String, Histogram> total = new LinkedHashMap<>();
        int windows = 0;
        EncodableHistogram e;
        while ((e = r.nextIntervalHistogram()) != null) {
            Histogram h = (Histogram) e;
            String tag = h.getTag() == null ? "untagged" : h.getTag();
            total.computeIfAbsent(tag, k -> { Histogram x = new Histogram(3); x.setAutoResize(true); return x; }).add(h);
            windows++;
        }
        StringBuilder sb = new StringBuilder("{\"windows\":" + windows + ",\"tags\":{");
        boolean first = true;
        for (Map.Entry<String, Histogram> en : total.entrySet()) {
            Histogram h = en.getValue();
            if (!first) sb.append(",");
            first = false;
            sb.append("\"").append(en.getKey()).append("\":{\"count\":").append(h.getTotalCount())
              .append(",\"min\":").append(h.getMinValue()).append(",\"max\":").append(h.getMaxValue())
              .append(",\"mean\":").append(h.getMean()).append(",\"values\":[");
            for (int i = 0; i < pcts.length; i++) {
                if (i > 0) sb.append(",");
                sb.append(h.getValueAtPercentile(pcts[i]));
            }
            sb.append("]}");
        }
        sb.append("}}");
        System.out.println(sb);
    }
}
