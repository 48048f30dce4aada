#ifndef TFLAME_TEST_MODEL_CHECK_H
#define TFLAME_TEST_MODEL_CHECK_H

/*
 * For the unit tests of the model and the lens: fail the test with the
 * checker's message unless the model (and so its lens) and its set are
 * consistent. Include after the model's header.
 */

#include "test_util.h"
#include "tflame/model.h"

static inline void
check_model(const struct model *m)
{
	struct tf_error err = TF_ERROR_INIT;

	if (model_check(m, &err))
		fail_msg("model_check: %s", tf_error_text(&err));
	tf_error_release(&err);
	check_profile_set(m->ps);
}

#endif /* TFLAME_TEST_MODEL_CHECK_H */
