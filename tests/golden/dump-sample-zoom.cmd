dump --width=80 --height=10 --zoom='compressor;start_thread;worker;compress_block' data/sample.perf.txt
