import java.util.ArrayList;
import java.util.List;

public class Work {
	static volatile long sink;

	static long spin(int n) {
		long h = 0;
		for (int i = 0; i < n; i++)
			h = h * 31 + (i ^ (h >>> 7));
		return h;
	}

	static long fib(int n) {
		return n < 2 ? n : fib(n - 1) + fib(n - 2);
	}

	static List<int[]> allocate(int n) {
		List<int[]> l = new ArrayList<>();
		for (int i = 0; i < n; i++)
			l.add(new int[64 + (i & 255)]);
		return l;
	}

	static String strings(int n) {
		StringBuilder sb = new StringBuilder();
		for (int i = 0; i < n; i++)
			sb.append(Integer.toString(i));
		return sb.toString();
	}

	static long deep(int depth, int n) {
		return depth == 0 ? spin(n) : deep(depth - 1, n) + 1;
	}

	public static void main(String[] args) throws Exception {
		long end = System.currentTimeMillis() + Long.parseLong(args[0]);
		if (args.length > 1 && args[1].equals("deep")) {
			while (System.currentTimeMillis() < end)
				sink += deep(100, 100000);
			return;
		}
		Thread t = new Thread(() -> {
			while (System.currentTimeMillis() < end)
				sink += allocate(2000).size() + strings(500).length();
		}, "allocator");
		t.start();
		while (System.currentTimeMillis() < end)
			sink += spin(200000) + fib(20);
		t.join();
	}
}
