dump --view=time-order --width=120 --height=6 --zoom='demo;__libc_start_call_main;main;render_frame' data/sample.perf.txt
