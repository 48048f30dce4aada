#ifndef TFLAME_JSON_H
#define TFLAME_JSON_H
#endif
