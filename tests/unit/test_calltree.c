#include "config.h"
#include "test_util.h"
static void t(void **s) { (void)s; assert_true(1); }
int main(void) { const struct CMUnitTest tests[] = { cmocka_unit_test(t) }; return cmocka_run_group_tests(tests, NULL, NULL); }
