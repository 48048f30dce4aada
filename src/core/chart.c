#include "config.h"
/* stub: being written */
typedef int tf_stub_chart;
