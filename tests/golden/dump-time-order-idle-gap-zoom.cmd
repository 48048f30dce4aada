dump --view=time-order --width=60 --ascii '--zoom=app;main;render' tests/data/perf/idle-gap.txt
