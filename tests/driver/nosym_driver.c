/* libd12_nosym.so: a shared object that is not a driver (no OpenAdapter12), for the missing-symbol message. */
__attribute__((visibility("default"))) int OpenAdapter11(void);

int OpenAdapter11(void)
{
    return 11;
}
